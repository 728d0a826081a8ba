package runner_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// memProposer applies changes in memory and keeps them.
type memProposer struct {
	mu      sync.Mutex
	applied []agent.Change
}

func (p *memProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.applied = append(p.applied, ch)
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

func call(name string, args map[string]any) geminitest.Turn {
	return geminitest.Reply(geminitest.Call(name, args))
}

// TestSessionRuns: a run built with a session writes it as it goes; a
// follow-up built from the session, by another host (a restart), sends
// the model the first run's turns; the trace names the session and holds
// the history the run continued; the accepted change is kept for a revert.
func TestSessionRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n"), 0o644)
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := ws.Roots()[0]
	gem := geminitest.NewServer(t,
		call("write_file", map[string]any{"file_path": "notes.md", "content": "hello\n"}),
		call("complete_task", map[string]any{"result": "wrote notes"}),
		call("complete_task", map[string]any{"result": "followed up"}))
	sessions, traces := t.TempDir(), t.TempDir()
	host := func() *runner.Host {
		return &runner.Host{TraceDir: traces, Sessions: session.NewStore(sessions, nil), Version: "test",
			NewModel: func(ctx context.Context, name string) (agent.Model, error) {
				return gemini.New(ctx, gemini.Config{APIKey: "k", BaseURL: gem.URL, Model: name, Getenv: func(string) string { return "" }})
			}}
	}
	spec := func(prompt string, p agent.Proposer) runner.Spec {
		return runner.Spec{Workspace: ws, Root: root, Proposer: p, Policy: policy.New("").WithMode(policy.ModeDefault),
			Settings: contract.DefaultSettings(), Task: agent.Task{Prompt: prompt}}
	}
	runToEnd := func(h *runner.Host, sp runner.Spec, id string) (agent.RunEnd, *runner.Run) {
		t.Helper()
		w, err := h.Session(root, id, sp.RunID, sp.Task.Prompt)
		if err != nil {
			t.Fatal(err)
		}
		sp.Session = w
		run, err := h.Build(t.Context(), sp)
		if err != nil {
			t.Fatal(err)
		}
		var end agent.RunEnd
		for ev, err := range run.Events(t.Context()) {
			if err != nil {
				t.Fatal(err)
			}
			if ev.Type == agent.EventRunEnd {
				end = *ev.End
			}
		}
		return end, run
	}

	first := host()
	p := &memProposer{}
	sp := spec("write notes", p)
	sp.RunID = "main-1"
	end, run := runToEnd(first, sp, "")
	id := run.SessionID()
	if end.Reason != agent.StopGoal || id == "" {
		t.Fatalf("first run: %+v in session %q", end, id)
	}
	if run.SessionID() != id {
		t.Error("SessionID changed")
	}

	second := host() // a new process
	sp = spec("now say hi", &memProposer{})
	sp.RunID = "main-2"
	if end, _ := runToEnd(second, sp, id); end.Reason != agent.StopGoal || end.Result != "followed up" {
		t.Fatalf("second run: %+v", end)
	}
	reqs := gem.Requests()
	if n := len(reqs[2].Contents); n != 5 {
		t.Errorf("the follow-up's first request has %d contents, want the first run's 5", n)
	}
	if !strings.Contains(reqs[2].Contents[0].Parts[0].Text, "write notes") {
		t.Errorf("the follow-up's first content: %+v", reqs[2].Contents[0])
	}

	info, err := second.Sessions.Get(root, id)
	if err != nil {
		t.Fatal(err)
	}
	if len(info.Runs) != 2 || info.Runs[0].Changes != 1 || info.Runs[1].End == nil || info.Title != "write notes" || info.Busy != "" {
		t.Errorf("session = %+v", info)
	}
	w, err := second.Sessions.Lock(root, id, "revert")
	if err != nil {
		t.Fatal(err)
	}
	changes, err := w.Revertable("main-1")
	w.Close()
	if err != nil || len(changes) != 1 || changes[0].Name != "notes.md" || !changes[0].Create || changes[0].After != "hello\n" {
		t.Errorf("revertable: %+v, %v", changes, err)
	}

	files, _ := trace.List(traces, root)
	var hd *trace.Header
	for _, f := range files {
		tr, err := trace.Load(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		if tr.Header.RunID == "main-2" {
			hd = &tr.Header
		}
	}
	if hd == nil || hd.Session != id || len(hd.History) != 5 {
		t.Errorf("the follow-up's trace header: session %q, %d history contents", hd.Session, len(hd.History))
	}
}

func TestSessionBusyAndUnknown(t *testing.T) {
	t.Parallel()
	h := &runner.Host{Sessions: session.NewStore(t.TempDir(), nil)}
	w, err := h.Session("/w", "", "main-1", "t")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if _, err := h.Session("/w", w.ID(), "main-2", ""); !errors.Is(err, session.ErrBusy) {
		t.Errorf("a second run of a busy session: %v", err)
	}
	if _, err := h.Session("/w", "s-12345678", "main-3", ""); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("an unknown session: %v", err)
	}
	none := &runner.Host{}
	if w, err := none.Session("/w", "", "main-4", "t"); w != nil || err != nil {
		t.Errorf("no store, new session: %v, %v", w, err)
	}
	if _, err := none.Session("/w", "s-12345678", "main-4", ""); !errors.Is(err, runner.ErrNoSessions) {
		t.Errorf("no store, a follow-up: %v", err)
	}
}
