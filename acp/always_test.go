package acp_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp/mcptest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/contract"
)

// optionsOf lists a permission request's options as "id kind name".
func optionsOf(p acpsdk.RequestPermissionRequest) []string {
	var options []string
	for _, o := range p.Options {
		options = append(options, string(o.OptionId)+" "+string(o.Kind)+" "+o.Name)
	}
	return options
}

// "Always allow `notes` tool `note` in this session" on the first call of
// an MCP tool: the second call of the turn runs without a question.
func TestMCPToolAlways(t *testing.T) {
	t.Parallel()
	notes := mcptest.NewServer(t)
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("m1", "mcp_notes_note", map[string]any{"text": "one"})),
		geminitest.Reply(geminitest.CallID("m2", "mcp_notes_note", map[string]any{"text": "two"})),
		done("Noted."),
	}
	h := start(t, clientFS, nil, turns)
	h.client.answer = choose("always")
	resp, err := h.conn.NewSession(t.Context(), acpsdk.NewSessionRequest{Cwd: h.dir, McpServers: []acpsdk.McpServer{
		{Http: &acpsdk.McpServerHttpInline{Type: "http", Name: "notes", Url: notes.URL, Headers: []acpsdk.HttpHeader{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(resp.SessionId, "Note one and two"); err != nil {
		t.Fatal(err)
	}
	_, asked, _ := h.client.snapshot()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	want := []string{
		"allow allow_once Allow once",
		"always allow_always Always allow `notes` tool `note` in this session",
		"always-save allow_always Always allow `notes` tool `note` in this workspace (saved to .agentls/policy.toml)",
		"deny reject_once Deny",
	}
	if diff := cmp.Diff(want, optionsOf(asked[0])); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"one", "two"}, notes.Notes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// "Always allow `127.0.0.1` in this workspace" on the first fetch: the
// second fetch of the host runs without a question, and the rule is saved.
func TestWebFetchAlwaysSaved(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		fmt.Fprintf(w, "page %s", r.URL.Path)
	}))
	t.Cleanup(page.Close)
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("w1", "web_fetch", map[string]any{"url": page.URL + "/a"})),
		geminitest.Reply(geminitest.CallID("w2", "web_fetch", map[string]any{"url": page.URL + "/b"})),
		done("Read."),
	}
	h := start(t, clientFS, nil, turns, withSettings(func(s *contract.Settings) { s.WebPrivateNetwork = true }))
	h.client.answer = choose("always-save")
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Read the pages"); err != nil {
		t.Fatal(err)
	}
	_, asked, _ := h.client.snapshot()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	if o := optionsOf(asked[0]); len(o) != 4 || o[2] != "always-save allow_always Always allow `127.0.0.1` in this workspace (saved to .agentls/policy.toml)" {
		t.Errorf("options %q", o)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
	text, err := os.ReadFile(policy.WorkspaceFile(h.dir))
	if err != nil || !strings.Contains(string(text), "toolName = \"web_fetch\"\nhost = \"127.0.0.1\"\ndecision = \"allow\"\n") {
		t.Errorf("the policy file (%v):\n%s", err, text)
	}
}
