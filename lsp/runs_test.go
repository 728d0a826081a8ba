package lsp_test

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

const twoFuncs = `package main

func A() {}

func B() {}
`

// Two runs that change one file are serialized: the second proposal goes
// out only once the first is decided, rebased onto the first's result.
// Meanwhile light requests (code actions, commands) are answered at once.
func TestRunsProposingToOneFileAreSerialized(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	turn := func(old, new string) geminitest.Turn {
		return geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": old, "new_string": new}))
	}
	done := geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))
	s := newSession(t, turn("func A()", "func Alpha()"), turn("func B()", "func Beta()"), done, done)
	release := make(chan struct{})
	var decided atomic.Int32
	s.ed.Decide = func(*protocol.ApplyWorkspaceEditParams) lsptest.Answer {
		if decided.Add(1) == 1 {
			<-release
		}
		return lsptest.Answer{}
	}
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), twoFuncs)
	for range 2 {
		if _, err := s.ed.Run(ctx, map[string]any{"prompt": "rename", "uri": u}); err != nil {
			t.Fatal(err)
		}
	}
	s.ed.WaitFor("the first proposal", isMethod(protocol.MethodWorkspaceApplyEdit))

	// The first proposal is pending: light requests still go through.
	actions, err := s.ed.Server.CodeAction(ctx, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        protocol.Range{End: protocol.Position{Line: 2}},
	})
	if err != nil || len(actions) == 0 {
		t.Fatalf("codeAction while a proposal is pending: %d actions, %v", len(actions), err)
	}
	// The second run has reached its proposal, but nothing more was sent.
	waitCount(t, s.ed, isEvent("edit_proposed"), 2)
	if n := count(s.ed.Messages(), protocol.MethodWorkspaceApplyEdit); n != 1 {
		t.Fatalf("%d applyEdit requests while the first is pending, want 1", n)
	}
	close(release)
	waitEnds(t, s.ed, 2)
	if got, _ := s.ed.Buffer(u); got != strings.NewReplacer("func A()", "func Alpha()", "func B()", "func Beta()").Replace(twoFuncs) {
		t.Errorf("buffer:\n%s", got)
	}
}

// waitEnds waits for n progress ends.
func waitEnds(t *testing.T, ed *lsptest.Editor, n int) {
	t.Helper()
	waitCount(t, ed, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && progressOf(m).Kind == "end"
	}, n)
}

// waitCount waits for n messages that satisfy ok.
func waitCount(t *testing.T, ed *lsptest.Editor, ok func(lsptest.Message) bool, n int) {
	t.Helper()
	seen := 0
	ed.WaitFor(fmt.Sprintf("%d messages", n), func(m lsptest.Message) bool {
		if ok(m) {
			seen++
		}
		return seen >= n
	})
}

func count(ms []lsptest.Message, method string) int {
	n := 0
	for _, m := range ms {
		if m.Method == method {
			n++
		}
	}
	return n
}

// Shutdown cancels every run: each ends aborted and its progress ends.
func TestShutdownCancelsAllRuns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	slow := geminitest.Turn{Delay: time.Hour}
	s := newSession(t, slow, slow)
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	for range 2 {
		if _, err := s.ed.Run(ctx, map[string]any{"prompt": "wait"}); err != nil {
			t.Fatal(err)
		}
	}
	waitCount(t, s.ed, isEvent("turn_start"), 2)
	if err := s.ed.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 2)
	for _, m := range s.ed.Messages() {
		if m.Method == protocol.MethodProgress && progressOf(m).Kind == "end" && !strings.Contains(progressOf(m).Message, "aborted") {
			t.Errorf("progress end %q, want aborted", progressOf(m).Message)
		}
	}
}

// When the client goes away (EOF), every run is cancelled and Serve
// returns.
func TestEOFEndsRuns(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s, done := newSessionDone(t, geminitest.Turn{Delay: time.Hour})
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "wait"}); err != nil {
		t.Fatal(err)
	}
	s.ed.WaitFor("the run's first turn", isEvent("turn_start"))
	s.ed.Close()
	select {
	case <-done:
	case <-ctx.Done():
		t.Fatal("Serve did not return after EOF")
	}
}
