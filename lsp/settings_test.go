package lsp

import (
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	v := templateVars{selection: "x := 1", file: "a.go", diagnostics: "unused x"}
	got := expand("In ${file}, ${instruction}: ${selection} (${diagnostics}) ${other}", v)
	if want := "In a.go, make it simpler and clearer: x := 1 (unused x) ${other}"; got != want {
		t.Errorf("expand = %q, want %q", got, want)
	}
}

func TestFirstLines(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"one", "one"},
		{"a\n\nb\n\nc\n\nd", "a\nb\nc…"},
		{"a\nb", "a\nb"},
		{"abcdefghij", "abcd…"},
	}
	for _, tt := range tests {
		if got := firstLines(tt.in, 3, 5); got != tt.want {
			t.Errorf("firstLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestRetryProgress(t *testing.T) {
	t.Parallel()
	ev := agent.Event{Type: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 2, Delay: 11500 * time.Millisecond, Reason: "model overloaded"}}
	if got := reportMessage(ev, false); got != "model overloaded, retrying in 12 s" {
		t.Errorf("progress = %q", got)
	}
}
