package mcp

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestQuestion(t *testing.T) {
	t.Parallel()
	ap := agent.Approval{Server: "fs\u202e", ServerTool: "write\x1b[2J", Args: json.RawMessage("{\"path\":\"a\u202etxt.exe\",\"text\":\"é😀\"}")}
	want := `Allow MCP server "fs\u202e" to run its tool "write\x1b[2J" with {"path":"a\u202etxt.exe","text":"é😀"}?`
	if got := Question(ap, 0); got != want {
		t.Errorf("Question:\n got %s\nwant %s", got, want)
	}
	if got := Question(agent.Approval{Server: "s", ServerTool: "t", Args: json.RawMessage(`{"a":"0123456789"}`)}, 8); got != `Allow MCP server "s" to run its tool "t" with {"a":"01… (10 more bytes not shown)?` {
		t.Errorf("cut: %s", got)
	}
}
