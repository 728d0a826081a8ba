package acp_test

import (
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp/mcptest"
)

// The client's MCP servers (session/new) give the session's runs their
// tools; each call is asked about with the server, the tool and the
// arguments, and runs once allowed.
func TestClientMCPServer(t *testing.T) {
	t.Parallel()
	notes := mcptest.NewServer(t)
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("m1", "mcp_notes_note", map[string]any{"text": "buy milk"})),
		done("Noted."),
	}
	h := start(t, clientFS, nil, turns)
	init, err := h.conn.Initialize(t.Context(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if mc := init.AgentCapabilities.McpCapabilities; !mc.Http || !mc.Sse {
		t.Errorf("mcpCapabilities %+v, want http and sse", mc)
	}
	resp, err := h.conn.NewSession(t.Context(), acpsdk.NewSessionRequest{Cwd: h.dir, McpServers: []acpsdk.McpServer{
		{Http: &acpsdk.McpServerHttpInline{Type: "http", Name: "notes", Url: notes.URL, Headers: []acpsdk.HttpHeader{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(resp.SessionId, "Note: buy milk"); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"buy milk"}, notes.Notes()); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	_, asked, _ := h.client.snapshot()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	q := blockText(asked[0].ToolCall.Content[0].Content.Content)
	if !strings.Contains(q, `MCP server "notes"`) || !strings.Contains(q, `"note"`) || !strings.Contains(q, "buy milk") {
		t.Errorf("the question is %q", q)
	}
	if !h.toldModel("noted") {
		t.Error("the model was not told the tool's result")
	}
}

// A client's server that cannot be used is said so on the first turn; the
// others are.
func TestClientMCPServerProblems(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{done("ok")})
	resp, err := h.conn.NewSession(t.Context(), acpsdk.NewSessionRequest{Cwd: h.dir, McpServers: []acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "dollar", Command: "/bin/true", Args: []string{}, Env: []acpsdk.EnvVariable{{Name: "TOKEN", Value: "a$b"}}}},
		{Http: &acpsdk.McpServerHttpInline{Type: "http", Name: "bad", Url: "file:///etc/passwd", Headers: []acpsdk.HttpHeader{}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(resp.SessionId, "Go"); err != nil {
		t.Fatal(err)
	}
	updates, _, _ := h.client.snapshot()
	var said []string
	for _, l := range transcript(updates) {
		if strings.HasPrefix(l, "message: agentls:") {
			said = append(said, strings.TrimSpace(l))
		}
	}
	want := []string{
		`message: agentls: the client's MCP server "dollar" is not used: the value of TOKEN holds "$", which agentls would read as a variable`,
		`message: agentls: the client's mcpServers: bad: "file:///etc/passwd" is not an http or https URL`,
	}
	if diff := cmp.Diff(want, said); diff != "" {
		t.Errorf("notices (-want +got):\n%s", diff)
	}
}
