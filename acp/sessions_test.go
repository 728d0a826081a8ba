package acp_test

import (
	"errors"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	sessions "github.com/agentls/agentls/agent/session"
)

// A session outlives its client: after a restart session/list finds it,
// session/load tells its conversation again, and the next prompt continues
// it (the model gets the first turn's history).
func TestLoadSession(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{done("Paris."), done("Berlin.")})
	init, err := h.conn.Initialize(t.Context(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.LoadSession || init.AgentCapabilities.SessionCapabilities.List == nil {
		t.Errorf("capabilities %+v: want loadSession and sessionCapabilities.list", init.AgentCapabilities)
	}
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Capital of France?"); err != nil {
		t.Fatal(err)
	}
	h.restart()
	cwd := h.dir
	list, err := h.conn.ListSessions(t.Context(), acpsdk.ListSessionsRequest{Cwd: &cwd})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionId != sid || *list.Sessions[0].Title != "Capital of France?" || list.Sessions[0].Cwd != cwd {
		t.Fatalf("sessions %+v, want %s", list.Sessions, sid)
	}
	if _, err := h.conn.LoadSession(t.Context(), acpsdk.LoadSessionRequest{SessionId: sid, Cwd: cwd, McpServers: []acpsdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	var replayed []string
	updates, _, _ := h.client.snapshot()
	for _, u := range updates {
		switch {
		case u.UserMessageChunk != nil:
			replayed = append(replayed, "user: "+blockText(u.UserMessageChunk.Content))
		case u.AgentMessageChunk != nil:
			replayed = append(replayed, "agent: "+blockText(u.AgentMessageChunk.Content))
		}
	}
	if diff := cmp.Diff([]string{"user: Capital of France?", "agent: Paris."}, replayed); diff != "" {
		t.Errorf("the conversation told again (-want +got):\n%s", diff)
	}
	// Without cwd, the list holds the folders of the connection's sessions.
	if all, err := h.conn.ListSessions(t.Context(), acpsdk.ListSessionsRequest{}); err != nil || len(all.Sessions) != 1 || all.Sessions[0].SessionId != sid {
		t.Errorf("session/list without cwd: %+v, %v", all.Sessions, err)
	}
	if _, err := h.prompt(sid, "And of Germany?"); err != nil {
		t.Fatal(err)
	}
	reqs := h.gem.Requests()
	if body := string(reqs[len(reqs)-1].Body); !strings.Contains(body, "Capital of France?") || !strings.Contains(body, "And of Germany?") {
		t.Errorf("the follow-up does not continue the conversation:\n%s", body)
	}
	if info, err := h.sessions.Get(h.dir, string(sid)); err != nil || len(info.Runs) != 2 {
		t.Errorf("the session holds %+v (%v), want two runs", info.Runs, err)
	}
}

// A turn answered with refusal is taken out of the conversation, as the
// stop reason tells the client: the next turn's model does not see it.
func TestRefusalLeavesTheConversation(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{geminitest.Blocked("PROHIBITED_CONTENT", ""), done("Fine.")})
	sid := h.newSession().SessionId
	resp, err := h.prompt(sid, "forbidden words here")
	if err != nil || resp.StopReason != acpsdk.StopReasonRefusal {
		t.Fatalf("the blocked prompt answered %+v, %v; want refusal", resp, err)
	}
	if _, err := h.prompt(sid, "a fine question"); err != nil {
		t.Fatal(err)
	}
	reqs := h.gem.Requests()
	if body := string(reqs[len(reqs)-1].Body); strings.Contains(body, "forbidden words here") || !strings.Contains(body, "a fine question") {
		t.Errorf("the turn after the refusal was sent:\n%s", body)
	}
}

// A session the client opened and closed without a prompt is not kept;
// an unknown one does not load.
func TestEmptySessionNotKept(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, nil)
	sid := h.newSession().SessionId
	if _, err := h.sessions.Get(h.dir, string(sid)); err != nil {
		t.Fatalf("the open session is not in the store: %v", err)
	}
	if _, err := h.conn.CloseSession(t.Context(), acpsdk.CloseSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.sessions.Get(h.dir, string(sid)); !errors.Is(err, sessions.ErrNotFound) {
		t.Errorf("the closed empty session: %v, want it gone", err)
	}
	_, err := h.conn.LoadSession(t.Context(), acpsdk.LoadSessionRequest{SessionId: sid, Cwd: h.dir, McpServers: []acpsdk.McpServer{}})
	if err == nil || !strings.Contains(err.Error(), "no such session") {
		t.Errorf("loading it: %v", err)
	}
	if _, err := h.conn.ListSessions(t.Context(), acpsdk.ListSessionsRequest{Cursor: &h.dir}); err == nil || !strings.Contains(err.Error(), "is not one agentls gave") {
		t.Errorf("a cursor agentls never gave: %v", err)
	}
}
