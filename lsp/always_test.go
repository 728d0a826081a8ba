package lsp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp/mcptest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// "Always allow `notes` tool `note`" on the first call of an MCP tool: the
// second call of the run is not asked about, and both run.
func TestServerAlwaysAllowMCPTool(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	s, _ := startSession(t, lsp.Config{},
		geminitest.Reply(geminitest.Call("mcp_notes_note", map[string]any{"text": "one"})),
		geminitest.Reply(geminitest.Call("mcp_notes_note", map[string]any{"text": "two"})),
		done())
	s.ed.ShowMessageRequest = lsptest.Choose("Always allow `notes` tool `note`")
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"mcpServers": map[string]any{"notes": map[string]any{"httpUrl": srv.URL}}})
	if end := runToEnd(t, s, "keep notes"); !strings.Contains(end, "done") {
		t.Fatalf("run ended: %s", end)
	}
	want := []string{"Allow MCP server \"notes\" to run its tool \"note\" with {\"text\":\"one\"}? " +
		"[Allow once | Always allow `notes` tool `note` | Always allow `notes` tool `note` in this workspace (save) | Deny]"}
	if diff := cmp.Diff(want, s.ed.Questions()); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"one", "two"}, srv.Notes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	if _, err := os.Stat(policy.WorkspaceFile(s.root)); err == nil {
		t.Error("a session answer wrote the workspace's policy file")
	}
}

// pageServer is a plain-HTTP server on loopback, which web_fetch reaches
// only with webPrivateNetwork, and counts its requests.
func pageServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintf(w, "page %s", r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

// "Always allow `127.0.0.1` in this workspace (save)" on the first fetch:
// the second fetch of the host is not asked about, and the rule is in the
// workspace's policy file.
func TestServerAlwaysAllowHostSaved(t *testing.T) {
	t.Parallel()
	page, hits := pageServer(t)
	s, _ := startSession(t, lsp.Config{},
		geminitest.Reply(geminitest.Call("web_fetch", map[string]any{"url": page.URL + "/a"})),
		geminitest.Reply(geminitest.Call("web_fetch", map[string]any{"url": page.URL + "/b"})),
		done())
	s.ed.ShowMessageRequest = lsptest.Choose("Always allow `127.0.0.1` in this workspace (save)")
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"webPrivateNetwork": true})
	if end := runToEnd(t, s, "read the pages"); !strings.Contains(end, "done") {
		t.Fatalf("run ended: %s", end)
	}
	want := []string{"Allow agentls to use web_fetch?\nFetch " + page.URL + "/a " +
		"[Allow once | Always allow `127.0.0.1` | Always allow `127.0.0.1` in this workspace (save) | Deny]"}
	if diff := cmp.Diff(want, s.ed.Questions()); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
	text, err := os.ReadFile(policy.WorkspaceFile(s.root))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), "toolName = \"web_fetch\"\nhost = \"127.0.0.1\"\ndecision = \"allow\"\n") {
		t.Errorf("the policy file:\n%s", text)
	}
}
