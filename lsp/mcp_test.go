package lsp_test

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp/mcptest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// A server of the user's settings.json and one of the editor's settings
// both give the run tools; each call asks in the editor with the server,
// the tool and the arguments, and a No is the model's answer.
func TestServerMCPFromSettingsFileAndEditor(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	s, _ := startSession(t, lsp.Config{},
		geminitest.Reply(geminitest.Call("mcp_file_note", map[string]any{"text": "from the file"})),
		geminitest.Reply(geminitest.Call("mcp_editor_note", map[string]any{"text": "from the editor\u202e"})),
		done())
	file := filepath.Join(s.userDir, "settings.json")
	if err := os.WriteFile(file, []byte("{\n  // the user's own servers\n  \"mcpServers\": {\"file\": {\"httpUrl\": \""+srv.URL+"\"}}\n}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	answers := []string{"Allow once", "Deny"}
	s.ed.ShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		mu.Lock()
		defer mu.Unlock()
		choice := answers[0]
		answers = answers[1:]
		return lsptest.Choose(choice)(p)
	}
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"mcpServers": map[string]any{"editor": map[string]any{"httpUrl": srv.URL}}})
	if end := runToEnd(t, s, "keep notes"); !strings.Contains(end, "done") {
		t.Fatalf("run ended: %s", end)
	}
	q := s.ed.Questions()
	want := []string{
		"Allow MCP server \"file\" to run its tool \"note\" with {\"text\":\"from the file\"}? [Allow once | Always allow `file` tool `note` | Always allow `file` tool `note` in this workspace (save) | Deny]",
		"Allow MCP server \"editor\" to run its tool \"note\" with {\"text\":\"from the editor\\u202e\"}? [Allow once | Always allow `editor` tool `note` | Always allow `editor` tool `note` in this workspace (save) | Deny]",
	}
	if strings.Join(q, "\n") != strings.Join(want, "\n") {
		t.Errorf("questions:\n%s\nwant:\n%s", strings.Join(q, "\n"), strings.Join(want, "\n"))
	}
	if notes := srv.Notes(); len(notes) != 1 || notes[0] != "from the file" {
		t.Errorf("notes %q", notes)
	}
}
