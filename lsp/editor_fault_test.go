//go:build unix

package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// The editor half of docs/reliability.md's fault matrix that the scenario
// files and e2e tests do not cover: requests the editor never answers, a
// cancel while a tool runs, a disconnect at each point of a run, and a
// change the server cannot apply.

// holdRequests makes the editor never answer requests of method: each
// waits until the server withdraws it ($/cancelRequest), or the test ends
// (the editor's connection waits for its handlers when it closes).
func holdRequests(t *testing.T, ed *lsptest.Editor, method string) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	ed.Intercept = func(ctx context.Context, m lsptest.Message) (any, error, bool) {
		if m.Method != method {
			return nil, nil, false
		}
		select {
		case <-ctx.Done():
		case <-release:
		}
		return nil, protocol.ErrRequestCancelled, true
	}
}

func cancelRun(t *testing.T, ed *lsptest.Editor, runID string) {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"runId": runID})
	if _, err := ed.Server.ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandCancel, Arguments: []protocol.LSPAny{b}}); err != nil {
		t.Fatalf("agentls.cancel: %v", err)
	}
}

// A request the editor never answers never holds a run: the run is still
// cancelled by agentls.cancel, withdraws the request, and ends aborted; a
// configuration pull that is never answered delays runs by a bound only.
func TestUnansweredRequests(t *testing.T) {
	t.Parallel()
	tests := []struct {
		method string
		turns  []geminitest.Turn
		ask    func(*lsptest.Editor) // the user's answers to other questions
		reason string                // the run's stop reason
	}{
		{method: protocol.MethodWorkspaceApplyEdit, turns: renameTurns()[1:], reason: "aborted"},
		{method: protocol.MethodWindowWorkDoneProgressCreate, turns: []geminitest.Turn{{Delay: time.Hour}}, reason: "aborted"},
		{method: protocol.MethodWindowShowMessageRequest, turns: []geminitest.Turn{touch("a.txt"), done()}, reason: "aborted"},
		// Runs wait at most two seconds for the first pull, then start with
		// the settings known so far.
		{method: protocol.MethodWorkspaceConfiguration, turns: []geminitest.Turn{done()}, reason: "goal"},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			clock := newFakeClock()
			s, _ := startSession(t, lsp.Config{After: clock.After}, tt.turns...)
			holdRequests(t, s.ed, tt.method)
			s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
			u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
			if tt.method == protocol.MethodWorkspaceConfiguration {
				// The run waits for the pull; two seconds pass.
				go clock.fire(2 * time.Second)
			}
			runID, err := s.ed.Run(ctx, map[string]any{"prompt": "rename Hello to Greet", "uri": u})
			if err != nil {
				t.Fatal(err)
			}
			if tt.reason == "aborted" {
				s.ed.WaitFor(tt.method, isMethod(tt.method))
				cancelRun(t, s.ed, runID)
				s.ed.WaitFor("$/cancelRequest", isMethod(protocol.MethodCancelRequest))
			}
			end := s.ed.WaitFor("run_end", isEvent("run_end"))
			if !strings.Contains(string(end.Params), `"reason":"`+tt.reason+`"`) {
				t.Errorf("run_end = %s, want %s", end.Params, tt.reason)
			}
			if got, _ := s.ed.Buffer(u); got != mainGo {
				t.Errorf("buffer changed:\n%s", got)
			}
			if exists(s, "a.txt") {
				t.Error("the command ran")
			}
			alive(t, s.ed, u)
		})
	}
}

// alive proves the server still serves the editor.
func alive(t *testing.T, ed *lsptest.Editor, u uri.URI) {
	t.Helper()
	actions, err := ed.Server.CodeAction(t.Context(), &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        protocol.Range{End: protocol.Position{Line: 1}},
	})
	if err != nil || len(actions) == 0 {
		t.Fatalf("codeAction after the fault: %d actions, %v", len(actions), err)
	}
}

// Cancel while a tool runs: the shell command's process group is killed,
// the model hears nothing more, and the run ends aborted.
func TestCancelMidTool(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t,
		geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "echo $$ > pid; exec sleep 600", "description": "wait"})),
		done())
	s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	runID, err := s.ed.Run(ctx, map[string]any{"prompt": "wait"})
	if err != nil {
		t.Fatal(err)
	}
	pid := waitPID(t, filepath.Join(s.root, "pid"))
	cancelRun(t, s.ed, runID)
	end := s.ed.WaitFor("run_end", isEvent("run_end"))
	if !strings.Contains(string(end.Params), `"reason":"aborted"`) {
		t.Errorf("run_end = %s", end.Params)
	}
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the command's process %d outlived the run: kill 0 = %v", pid, err)
	}
	if n := len(s.gem.Requests()); n != 1 {
		t.Errorf("model requests = %d, want 1", n)
	}
}

// waitPID waits for the shell to write its pid to path.
func waitPID(t *testing.T, path string) int {
	t.Helper()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for {
		if b, err := os.ReadFile(path); err == nil && strings.HasSuffix(string(b), "\n") {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		select {
		case <-tick.C:
		case <-t.Context().Done():
			t.Fatal("the command never started")
		}
	}
}

// The editor goes away (its process dies, the pipe closes) at each point of
// a run: Serve returns, the run ends, nothing is written, and no goroutine
// is left behind. Not parallel: the leak check needs the package quiet.
func TestDisconnectMidRun(t *testing.T) {
	before := goleak.IgnoreCurrent()
	stream := geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Thought("**Thinking**\n\nlong")}, ChunkDelay: time.Hour}
	for i := range 100 {
		stream.Chunks = append(stream.Chunks, geminitest.Text("word "+strconv.Itoa(i)))
	}
	tests := []struct {
		name  string
		turns []geminitest.Turn
		hold  string                   // a request the editor never answers
		allow bool                     // the user allows commands
		wait  func(*lsptest.Editor)    // until the run is at the point
		check func(*testing.T, string) // the workspace folder afterwards
	}{
		{name: "waiting for the model", turns: []geminitest.Turn{{Delay: time.Hour}},
			wait: func(ed *lsptest.Editor) { ed.WaitFor("turn_start", isEvent("turn_start")) }},
		{name: "model streaming", turns: []geminitest.Turn{stream},
			wait: func(ed *lsptest.Editor) { ed.WaitFor("a thought", isEvent("thought")) }},
		{name: "proposal pending", turns: renameTurns()[1:], hold: protocol.MethodWorkspaceApplyEdit,
			wait: func(ed *lsptest.Editor) { ed.WaitFor("applyEdit", isMethod(protocol.MethodWorkspaceApplyEdit)) }},
		{name: "approval pending", turns: []geminitest.Turn{touch("a.txt"), done()}, hold: protocol.MethodWindowShowMessageRequest,
			wait: func(ed *lsptest.Editor) {
				ed.WaitFor("the question", isMethod(protocol.MethodWindowShowMessageRequest))
			},
			check: func(t *testing.T, root string) {
				if _, err := os.Stat(filepath.Join(root, "a.txt")); err == nil {
					t.Error("the command ran")
				}
			}},
		{name: "tool running", allow: true,
			turns: []geminitest.Turn{geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "echo $$ > pid; exec sleep 600"})), done()},
			check: func(t *testing.T, root string) {
				b, _ := os.ReadFile(filepath.Join(root, "pid"))
				pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
				if err := syscall.Kill(pid, 0); pid == 0 || !errors.Is(err, syscall.ESRCH) {
					t.Errorf("the command's process %d outlived the connection: %v", pid, err)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := t.Context()
			s, disconnect, served := newPipeSession(t, tt.turns...)
			if tt.hold != "" {
				holdRequests(t, s.ed, tt.hold)
			}
			if tt.allow {
				s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
			}
			s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
			path := filepath.Join(s.root, "main.go")
			os.WriteFile(path, []byte(mainGo), 0o644)
			u := s.ed.Open(ctx, path, mainGo)
			if _, err := s.ed.Run(ctx, map[string]any{"prompt": "rename Hello to Greet", "uri": u}); err != nil {
				t.Fatal(err)
			}
			if tt.wait != nil {
				tt.wait(s.ed)
			} else {
				waitPID(t, filepath.Join(s.root, "pid"))
			}
			disconnect()
			select {
			case <-served:
			case <-time.After(30 * time.Second):
				t.Fatal("Serve did not return after the editor went away")
			}
			if b, _ := os.ReadFile(path); string(b) != mainGo {
				t.Errorf("main.go on disk:\n%s", b)
			}
			if tt.check != nil {
				tt.check(t, s.root)
			}
		})
	}
	goleak.VerifyNone(t, before)
}

// A didChange the server cannot apply (a range past the end: the editor
// and the server disagree) leaves the server's copy out of sync: runs
// cannot read or change that file, so nothing is proposed against a text
// the editor does not have, until the editor sends its whole text again.
func TestChangeOutOfRange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	replace := geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello()", "new_string": "Greet()", "expected_replacements": 2}))
	s := newSession(t, replace, done(), replace, done())
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	s.ed.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: 2},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangePartial{
			Range: protocol.Range{Start: protocol.Position{Line: 90}, End: protocol.Position{Line: 90}}, Text: "x"}},
	})
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "rename Hello to Greet"}); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 1)
	if resp := lastFunctionResponse(t, s.gem.Requests()[1]); !strings.Contains(resp, "out of sync") || !strings.Contains(resp, "reopen") {
		t.Errorf("replace told the model %s", resp)
	}
	if n := count(s.ed.Messages(), protocol.MethodWorkspaceApplyEdit); n != 0 {
		t.Errorf("%d proposals for an out-of-sync buffer", n)
	}
	// The editor sends its whole text: the buffer is back.
	s.ed.Type(ctx, u, mainGo)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "rename Hello to Greet"}); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 2)
	if got, _ := s.ed.Buffer(u); got != mainGoRenamed {
		t.Errorf("buffer after the resync and the second run:\n%s", got)
	}
}
