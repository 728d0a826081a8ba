package mcp

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResult(t *testing.T) {
	t.Parallel()
	text := func(s string) mcp.Content { return &mcp.TextContent{Text: s} }
	tests := []struct {
		name string
		res  *mcp.CallToolResult
		want string
	}{
		{"text", &mcp.CallToolResult{Content: []mcp.Content{text("a"), text("b")}}, "a\nb"},
		{"structured only", &mcp.CallToolResult{StructuredContent: map[string]any{"n": 1}}, `structured content: {"n":1}`},
		{"structured and other text", &mcp.CallToolResult{Content: []mcp.Content{text("see below")}, StructuredContent: map[string]any{"n": 1}},
			"structured content: {\"n\":1}\nsee below"},
		{"structured said by its text", &mcp.CallToolResult{Content: []mcp.Content{text("line 1\nline 2")},
			StructuredContent: map[string]any{"content": "line 1\nline 2"}}, "line 1\nline 2"},
		{"nothing", &mcp.CallToolResult{}, "(the tool returned nothing)"},
		{"audio", &mcp.CallToolResult{Content: []mcp.Content{&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("RIFF")}}},
			"[audio (audio/wav, 4 bytes): not given to the model]"},
	}
	for _, tt := range tests {
		if got := result("s", "t", tt.res); got.Output != tt.want || got.IsError {
			t.Errorf("%s: %+v, want %q", tt.name, got, tt.want)
		}
	}
	if got := capOutput("ab€cd", 3); got != "ab\n[… 5 of 7 bytes cut: the result is longer than agentls passes on]" {
		t.Errorf("cut inside a character: %q", got)
	}
}
