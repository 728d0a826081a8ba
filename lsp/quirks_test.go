package lsp

import (
	"testing"

	"go.lsp.dev/protocol"
)

func TestQuirksOf(t *testing.T) {
	t.Parallel()
	info := func(name, version string) protocol.ClientInfo {
		i := protocol.ClientInfo{Name: name}
		if version != "" {
			i.Version = protocol.NewOptional(version)
		}
		return i
	}
	tests := []struct {
		name   string
		info   protocol.ClientInfo
		plugin bool
		want   quirks
	}{
		{"Neovim 0.7", info("Neovim", "0.7.2"), false, quirks{skipsStaleSilently: true}},
		{"Neovim 0.11", info("Neovim", "0.11.5"), false, quirks{skipsStaleSilently: true}},
		{"Neovim 0.12", info("Neovim", "0.12.4"), false, quirks{confirmCannotRefuse: true, skipsStaleSilently: true}},
		{"Neovim nightly", info("Neovim", "v0.13.0-dev+1234-gabc"), false, quirks{confirmCannotRefuse: true, skipsStaleSilently: true}},
		{"Neovim 1.0", info("Neovim", "1.0.0"), false, quirks{confirmCannotRefuse: true, skipsStaleSilently: true}},
		{"Neovim, no version", info("Neovim", ""), false, quirks{skipsStaleSilently: true}},
		{"Neovim with the plugin", info("Neovim", "0.12.4"), true, quirks{}},
		{"eglot (no clientInfo)", info("", ""), false, quirks{}},
		{"VS Code", info("Visual Studio Code", "1.139.1"), false, quirks{}},
	}
	for _, tt := range tests {
		if got := quirksOf(tt.info, tt.plugin); got != tt.want {
			t.Errorf("%s: quirks %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestHasPlugin(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		``: false, `{}`: false, `{"agentls":{"hunkReview":true}}`: true,
		`{"agentls":{"hunkReview":false}}`: false, `{"agentls":true}`: false, `[1]`: false,
	} {
		if got := hasPlugin(protocol.ClientCapabilities{Experimental: protocol.LSPAny(raw)}); got != want {
			t.Errorf("experimental %s: plugin %v, want %v", raw, got, want)
		}
	}
}
