package trace_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/trace"
)

// recordedRun records a run of three turns: a shell command and an edit,
// then a second edit, then complete_task.
func recordedRun(t *testing.T) (*trace.Trace, []agent.Event) {
	t.Helper()
	m := &script{turns: []*genai.GenerateContentResponse{
		answer(thought("**Starting**"), call("run_shell_command", map[string]any{"command": "make gen"}),
			call("append", map[string]any{"file": "a.txt", "line": "one"})),
		answer(call("append", map[string]any{"file": "a.txt", "line": "two"})),
		answer(done("two lines")),
	}}
	fs := &files{m: map[string]string{"a.txt": "zero\n"}}
	shell := newShell()
	cfg := agent.Config{Model: m, Tools: []agent.Tool{shell, appendTool(fs, fs)}, Approver: allow{}}
	path, evs := record(t, cfg, agent.Task{Prompt: "add lines"}, trace.Options{})
	if endOf(evs).Reason != agent.StopGoal || shell.ran() != 1 || fs.get("a.txt") != "zero\none\ntwo\n" {
		t.Fatalf("recording: %+v, %d runs, %q", endOf(evs), shell.ran(), fs.get("a.txt"))
	}
	return load(t, path), evs
}

// replay runs a trace again with fresh tools over fs.
func replay(t *testing.T, tr *trace.Trace, fs *files) (*trace.Replay, []agent.Event, shellTool) {
	t.Helper()
	rp := trace.NewReplay(tr)
	shell := newShell()
	cfg := rp.Config()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rp.SetAbort(cancel)
	cfg.Tools = rp.Tools([]agent.Tool{shell, appendTool(fs, rp.Proposer(fs))})
	return rp, drain(t, agent.Run(ctx, cfg, rp.Task())), shell
}

func diffs(evs []agent.Event) []string {
	var out []string
	for _, ev := range ofType(evs, agent.EventEditProposed) {
		out = append(out, ev.Edit.Diff)
	}
	return out
}

func TestReplayReproducesTheRun(t *testing.T) {
	t.Parallel()
	tr, recorded := recordedRun(t)
	fs := &files{m: map[string]string{"a.txt": "zero\n"}}
	rp, evs, shell := replay(t, tr, fs)
	if d := rp.Diverged(); d != nil {
		t.Fatalf("diverged: %v", d)
	}
	if got := endOf(evs); got.Reason != agent.StopGoal || got.Result != "two lines" {
		t.Errorf("replay end = %+v", got)
	}
	if shell.ran() != 0 {
		t.Errorf("the replay ran the shell command %d times", shell.ran())
	}
	if diff := cmp.Diff(diffs(recorded), diffs(evs)); diff != "" || len(diffs(evs)) != 2 {
		t.Errorf("proposals (-recorded +replayed):\n%s", diff)
	}
	if fs.get("a.txt") != "zero\none\ntwo\n" {
		t.Errorf("a.txt = %q", fs.get("a.txt"))
	}
	results := func(evs []agent.Event) []string {
		var out []string
		for _, ev := range ofType(evs, agent.EventToolResult) {
			out = append(out, ev.Call.Name+": "+ev.Result.Output)
		}
		slices.Sort(out) // the calls of a turn run in parallel
		return out
	}
	if diff := cmp.Diff(results(recorded), results(evs)); diff != "" {
		t.Errorf("tool results (-recorded +replayed):\n%s", diff)
	}
	if got := len(ofType(evs, agent.EventApprovalDecided)); got != 1 {
		t.Errorf("%d approvals", got)
	}
	if evs[0].RunID != recorded[0].RunID {
		t.Errorf("run id %s, recorded %s", evs[0].RunID, recorded[0].RunID)
	}
}

func TestReplayReportsDivergence(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		file   string // a.txt at the start of the replay
		tamper func(*trace.Trace)
		where  string
		both   []string // in the divergence: what the recording had, what the run has
	}{
		{
			name: "another file", file: "ZERO\n",
			where: "proposal for a.txt", both: []string{"+one", " zero", " ZERO"},
		},
		{
			name: "a tool fails where it ran", file: "zero\n",
			tamper: func(tr *trace.Trace) { tr.Events = dropEvents(tr.Events, agent.EventEditProposed) },
			where:  "proposal for a.txt", both: []string{"no such proposal", "+one"},
		},
		{
			name: "other arguments", file: "zero\n",
			tamper: func(tr *trace.Trace) {
				for i := range tr.Events {
					if c := tr.Events[i].Call; tr.Events[i].Type == agent.EventToolCall && c.Name == "run_shell_command" {
						c.Args = []byte(`{"command":"make all"}`)
					}
				}
			},
			where: "run_shell_command call", both: []string{`"make all"`, `"make gen"`},
		},
		{
			name: "the recording ends", file: "zero\n",
			tamper: func(tr *trace.Trace) { tr.Calls = tr.Calls[:2] },
			where:  "#3", both: []string{"the recording ends", "append:ok"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr, _ := recordedRun(t)
			if tt.tamper != nil {
				tt.tamper(tr)
			}
			rp, evs, shell := replay(t, tr, &files{m: map[string]string{"a.txt": tt.file}})
			d := rp.Diverged()
			if d == nil {
				t.Fatalf("no divergence; run end %+v", endOf(evs))
			}
			if !strings.Contains(d.Where, tt.where) {
				t.Errorf("where = %q, want %q", d.Where, tt.where)
			}
			for _, s := range tt.both {
				if !strings.Contains(d.Recorded+"\n"+d.Now, s) {
					t.Errorf("divergence lacks %q:\nrecorded: %s\nnow: %s", s, d.Recorded, d.Now)
				}
			}
			if end := endOf(evs); end.Reason != agent.StopError || !strings.Contains(end.Error, "replay diverged") {
				t.Errorf("run end = %+v", end)
			}
			if !errors.Is(d, trace.ErrDiverged) {
				t.Error("not ErrDiverged")
			}
			if shell.ran() != 0 {
				t.Error("the replay ran a command")
			}
		})
	}
}

// A model call that answers differently from the recorded one diverges.
func TestReplayModelDivergence(t *testing.T) {
	t.Parallel()
	tr, _ := recordedRun(t)
	rp := trace.NewReplay(tr)
	req := &agent.Request{PromptID: tr.Header.RunID + "#2", Contents: []*genai.Content{{Role: genai.RoleUser, Parts: []*genai.Part{
		{FunctionResponse: &genai.FunctionResponse{Name: "run_shell_command", Response: map[string]any{"error": "no"}}},
		{FunctionResponse: &genai.FunctionResponse{Name: "append", Response: map[string]any{"output": "added"}}},
	}}}}
	for _, err := range rp.Generate(t.Context(), req) {
		if !errors.Is(err, trace.ErrDiverged) {
			t.Fatalf("err = %v", err)
		}
	}
	d := rp.Diverged()
	if d == nil || d.Recorded != "a call answering [run_shell_command:ok, append:ok]" || d.Now != "a call answering [run_shell_command:error, append:ok]" {
		t.Errorf("divergence = %+v", d)
	}
}

// Where the user stopped the recorded run, the replay stops too.
func TestReplayOfAnAbortedRun(t *testing.T) {
	t.Parallel()
	m := &script{turns: []*genai.GenerateContentResponse{answer(call("append", map[string]any{"file": "a.txt", "line": "one"}))}}
	fs := &files{m: map[string]string{"a.txt": ""}}
	ctx, cancel := context.WithCancel(t.Context())
	quit := proposerFunc(func(ctx context.Context, ch agent.Change) (agent.Decision, error) {
		cancel() // the user pressed q
		return agent.Decision{}, ctx.Err()
	})
	w, path := newWriter(t)
	evs := drain(t, w.Run(ctx, agent.Config{Model: m, Tools: []agent.Tool{appendTool(fs, quit)}}, agent.Task{Prompt: "x"}, trace.Header{}))
	w.Close()
	if endOf(evs).Reason != agent.StopAborted {
		t.Fatalf("recorded end = %+v", endOf(evs))
	}
	rp, replayed, _ := replay(t, load(t, path), &files{m: map[string]string{"a.txt": ""}})
	if d := rp.Diverged(); d != nil || endOf(replayed).Reason != agent.StopAborted {
		t.Errorf("replay end %+v, divergence %v", endOf(replayed), d)
	}
}

type proposerFunc func(ctx context.Context, ch agent.Change) (agent.Decision, error)

func (f proposerFunc) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	return f(ctx, ch)
}

func dropEvents(evs []agent.Event, typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, ev := range evs {
		if ev.Type != typ {
			out = append(out, ev)
		}
	}
	return out
}

// TestReplayOfALoopQuestion: the user's answer to the loop question is
// replayed like an approval's.
func TestReplayOfALoopQuestion(t *testing.T) {
	t.Parallel()
	var turns []*genai.GenerateContentResponse
	for range 10 {
		turns = append(turns, answer(call("append", map[string]any{"file": "a.txt", "line": "x"})))
	}
	turns = append(turns, answer(done("ten lines")))
	fs := &files{m: map[string]string{"a.txt": ""}}
	cfg := agent.Config{Model: &script{turns: turns}, Tools: []agent.Tool{appendTool(fs, fs)}, Approver: allow{}}
	path, evs := record(t, cfg, agent.Task{Prompt: "add lines"}, trace.Options{})
	if endOf(evs).Reason != agent.StopGoal || len(ofType(evs, agent.EventApprovalRequested)) != 1 {
		t.Fatalf("recording: %+v, %d questions", endOf(evs), len(ofType(evs, agent.EventApprovalRequested)))
	}
	rp, replayed, _ := replay(t, load(t, path), &files{m: map[string]string{"a.txt": ""}})
	if d := rp.Diverged(); d != nil || endOf(replayed).Reason != agent.StopGoal {
		t.Errorf("replay: %+v, diverged %+v", endOf(replayed), d)
	}
}
