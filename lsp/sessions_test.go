package lsp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	agentsession "github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

// execute runs a command with one argument and decodes its answer into out.
func execute(ctx context.Context, s *session, command string, arg, out any) error {
	b, _ := json.Marshal(arg)
	res, err := s.ed.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: command, Arguments: []protocol.LSPAny{b}})
	if err != nil || out == nil {
		return err
	}
	return json.Unmarshal(res, out)
}

// runIn starts a run (in session id, "" for a new one) and waits for its
// progress end, which it returns with the run's answer.
func runIn(t *testing.T, s *session, prompt, id string) (contract.RunResult, string) {
	t.Helper()
	from := len(s.ed.Messages())
	var res contract.RunResult
	if err := execute(t.Context(), s, contract.CommandRun, contract.RunArgs{Prompt: prompt, SessionID: id}, &res); err != nil {
		t.Fatalf("run: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, m, err := s.ed.Next(ctx, from, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && progressOf(m).Kind == "end" && progressOf(m).Token == "agentls/"+res.RunID
	})
	if err != nil {
		t.Fatalf("waiting for the run's end: %v", err)
	}
	return res, progressOf(m).Message
}

func rpcError(t *testing.T, err error, code jsonrpc2.Code, want string) {
	t.Helper()
	var rpcErr *jsonrpc2.Error
	if !asRPC(err, &rpcErr) || rpcErr.Code != code || !strings.Contains(rpcErr.Message, want) {
		t.Errorf("error = %v, want code %d mentioning %q", err, code, want)
	}
}

// TestFollowUp: a follow-up names the session the first run answered
// with; the model's first request of it carries the first run's turns,
// and the events of both runs carry the session.
func TestFollowUp(t *testing.T) {
	t.Parallel()
	sig := geminitest.Call("read_file", map[string]any{"file_path": "main.go"})
	sig.ThoughtSignature = []byte("signed-read")
	s, _ := startSession(t, lsp.Config{SessionDir: t.TempDir()},
		geminitest.Reply(sig),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It prints hi."})),
		done())
	os.WriteFile(filepath.Join(s.root, "main.go"), []byte(mainGo), 0o644)
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"events": true})

	first, _ := runIn(t, s, "what does main print?", "")
	if first.SessionID == "" {
		t.Fatal("agentls.run answered no session")
	}
	second, end := runIn(t, s, "now make it print hello", first.SessionID)
	if second.SessionID != first.SessionID || second.RunID == first.RunID {
		t.Errorf("follow-up answered %+v after %+v", second, first)
	}
	if !strings.HasPrefix(end, "done\n") {
		t.Errorf("progress end %q", end)
	}
	reqs := s.gem.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	follow := reqs[2].Contents
	if len(follow) != 5 || !strings.Contains(follow[0].Parts[0].Text, "what does main print?") {
		t.Fatalf("the follow-up's first request: %d contents, first %+v", len(follow), follow[0])
	}
	if got := follow[1].Parts[0].ThoughtSignature; string(got) != "signed-read" {
		t.Errorf("the first run's signature came back as %q", got)
	}
	last := follow[4]
	if n := len(last.Parts); n != 2 || last.Parts[0].FunctionResponse == nil || !strings.Contains(last.Parts[1].Text, "now make it print hello") {
		t.Errorf("the follow-up's last content: %+v", last.Parts)
	}
	for _, m := range s.ed.Messages() {
		if m.Method != contract.MethodEvent {
			continue
		}
		var n contract.EventNotification
		json.Unmarshal(m.Params, &n)
		if n.SessionID != first.SessionID {
			t.Errorf("%s event of %s has session %q, want %q", n.Type, n.RunID, n.SessionID, first.SessionID)
		}
	}
}

// TestSessionsCommand: the list has the workspace's sessions, their runs
// and what they cost; a session is deleted; unknown, deleted, corrupt and
// newer sessions get clear errors, and nothing else is lost.
func TestSessionsCommand(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, _ := startSession(t, lsp.Config{SessionDir: dir}, done(), done())
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"events": true})
	ctx := t.Context()
	first, _ := runIn(t, s, "one", "")
	runIn(t, s, "two", first.SessionID)

	var list contract.SessionsResult
	if err := execute(ctx, s, contract.CommandSessions, contract.SessionsArgs{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || !list.Persistent {
		t.Fatalf("sessions = %+v", list)
	}
	si := list.Sessions[0]
	if si.ID != first.SessionID || si.Title != "one" || len(si.Runs) != 2 || si.Runs[1].Prompt != "two" ||
		si.Usage.Cost <= 0 || si.Usage.Cost != si.Runs[0].Usage.Cost+si.Runs[1].Usage.Cost || si.Runs[0].End == nil {
		t.Errorf("session = %+v", si)
	}

	// Bad input: an unknown session, a corrupt one, a newer one.
	store := agentsession.NewStore(dir, nil)
	corrupt, _ := store.Create(s.root, "corrupt")
	newer, _ := store.Create(s.root, "newer")
	files, _ := filepath.Glob(filepath.Join(dir, "*", "*.jsonl"))
	for _, f := range files {
		b, _ := os.ReadFile(f)
		switch {
		case strings.Contains(f, corrupt):
			os.WriteFile(f, append(b, "{not json\n"...), 0o600)
		case strings.Contains(f, newer):
			os.WriteFile(f, []byte(strings.Replace(string(b), `"format":1`, `"format":2`, 1)), 0o600)
		}
	}
	var res contract.RunResult
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "x", SessionID: "s-00000000"}, &res), jsonrpc2.InvalidParams, `no such session "s-00000000"`)
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "x", SessionID: "../../etc"}, &res), jsonrpc2.InvalidParams, "no such session")
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "x", SessionID: corrupt}, &res), jsonrpc2.InvalidRequest, "does not read: line 2")
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "x", SessionID: newer}, &res), jsonrpc2.InvalidRequest, "newer agentls (format 2")
	if err := execute(ctx, s, contract.CommandSessions, contract.SessionsArgs{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || len(list.Problems) != 2 {
		t.Errorf("after bad sessions: %d sessions, problems %q", len(list.Sessions), list.Problems)
	}

	if err := execute(ctx, s, contract.CommandSessions, contract.SessionsArgs{Action: contract.SessionsDelete, SessionID: first.SessionID}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 0 {
		t.Errorf("after delete: %+v", list.Sessions)
	}
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "x", SessionID: first.SessionID}, &res), jsonrpc2.InvalidParams, "deleted")
	rpcError(t, execute(ctx, s, contract.CommandSessions, contract.SessionsArgs{Action: contract.SessionsDelete, SessionID: first.SessionID}, &list), jsonrpc2.InvalidParams, "no such session")
	rpcError(t, execute(ctx, s, contract.CommandSessions, contract.SessionsArgs{Action: "purge"}, &list), jsonrpc2.InvalidParams, `action "purge"`)
	if len(s.gem.Requests()) != 2 {
		t.Errorf("bad follow-ups called the model: %d calls", len(s.gem.Requests()))
	}
}

// TestBusySession: a second run of a session that runs is refused, with
// the run that holds it named; once that run ends, the follow-up runs.
func TestBusySession(t *testing.T) {
	t.Parallel()
	slow := done()
	slow.Delay = time.Hour // until the run is cancelled
	arrived := make(chan struct{})
	slow.Check = func(geminitest.Request) error { close(arrived); return nil }
	s, _ := startSession(t, lsp.Config{}, slow, done())
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	ctx := t.Context()
	var first contract.RunResult
	if err := execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "slow"}, &first); err != nil {
		t.Fatal(err)
	}
	var res contract.RunResult
	rpcError(t, execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "again", SessionID: first.SessionID}, &res), jsonrpc2.InvalidRequest, first.RunID+" is running in it")
	rpcError(t, execute(ctx, s, contract.CommandRevert, contract.RevertArgs{RunID: first.RunID}, &res), jsonrpc2.InvalidRequest, first.RunID+" is running in it")
	<-arrived // the slow answer is the first run's, not the follow-up's
	if err := execute(ctx, s, contract.CommandCancel, contract.CancelArgs{RunID: first.RunID}, nil); err != nil {
		t.Fatal(err)
	}
	ctx2, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if _, _, err := s.ed.Next(ctx2, 0, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && progressOf(m).Kind == "end" && progressOf(m).Token == "agentls/"+first.RunID
	}); err != nil {
		t.Fatal(err)
	}
	if _, end := runIn(t, s, "again", first.SessionID); !strings.HasPrefix(end, "done") {
		t.Errorf("the follow-up after the cancel ended %q", end)
	}
}

// TestRevertThenFollowUp: after a revert, the session's next run is told
// what was reverted; a second revert of the same run has nothing left.
func TestRevertThenFollowUp(t *testing.T) {
	t.Parallel()
	s, _ := startSession(t, lsp.Config{SessionDir: t.TempDir()}, append(renameTurns(), done())...)
	path := filepath.Join(s.root, "main.go")
	os.WriteFile(path, []byte(mainGo), 0o644)
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	s.ed.Open(t.Context(), path, mainGo)
	ctx := t.Context()
	first, _ := runIn(t, s, "rename Hello to Greet", "")
	if text, _ := s.ed.Buffer(workspace.URIFromPath(path)); text != mainGoRenamed {
		t.Fatalf("after the run main.go is:\n%s", text)
	}
	var rv contract.RevertResult
	if err := execute(ctx, s, contract.CommandRevert, contract.RevertArgs{RunID: first.RunID}, &rv); err != nil {
		t.Fatal(err)
	}
	if rv.Outcome != "applied" || rv.SessionID != first.SessionID || len(rv.Files) != 1 || rv.Files[0].Outcome != agentsession.Reverted {
		t.Errorf("revert = %+v", rv)
	}
	if text, _ := s.ed.Buffer(workspace.URIFromPath(path)); text != mainGo {
		t.Errorf("after the revert main.go is:\n%s", text)
	}
	rpcError(t, execute(ctx, s, contract.CommandRevert, contract.RevertArgs{RunID: first.RunID}, &rv), jsonrpc2.InvalidParams, "reverted already")
	rpcError(t, execute(ctx, s, contract.CommandRevert, contract.RevertArgs{RunID: "main-00000000"}, &rv), jsonrpc2.InvalidParams, "no such session holds run")

	runIn(t, s, "what now?", first.SessionID)
	reqs := s.gem.Requests()
	task := reqs[len(reqs)-1].Contents
	text := task[len(task)-1].Parts[len(task[len(task)-1].Parts)-1].Text
	if !strings.Contains(text, "The user reverted the changes of an earlier run ("+first.RunID+"): main.go are back") || !strings.Contains(text, "what now?") {
		t.Errorf("the follow-up's task does not tell the revert:\n%s", text)
	}
}
