//go:build unix

package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

type refuseProposals struct{ t *testing.T }

func (p refuseProposals) Propose(context.Context, agent.Change) (agent.Decision, error) {
	p.t.Error("the replay proposed a change the recording did not")
	return agent.Decision{Outcome: agent.OutcomeRejected}, nil
}

// A server run is built by the run builder: its workspace custom agent sees
// the project context files, its trace names the custom agent, and the
// trace replays — the custom agent and the approved shell command included
// — with no model call and no command run.
func TestServerRunRecordsAndReplays(t *testing.T) {
	t.Parallel()
	traces := t.TempDir()
	s, _ := startSession(t, lsp.Config{TraceDir: traces},
		geminitest.Reply(geminitest.Call("reviewer", map[string]any{"objective": "review main.go"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "looks fine"})),
		touch("ran.txt"),
		done())
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(s.root, "AGENTS.md"), "The marker word is periwinkle-7731.\n")
	write(filepath.Join(s.root, ".agentls", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review.\n")
	s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	if end := runToEnd(t, s, "review, then make ran.txt"); !strings.Contains(end, "done") {
		t.Fatalf("run ended: %s", end)
	}
	reqs := s.gem.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	if sys := reqs[1].SystemText(); !strings.Contains(sys, "You review.") || !strings.Contains(sys, "periwinkle-7731") {
		t.Errorf("the subagent's system instruction lacks its instructions or the project context:\n%s", sys)
	}
	if !exists(s, "ran.txt") {
		t.Fatal("the recorded run did not run its command")
	}

	files, err := trace.List(traces, s.root)
	if err != nil || len(files) != 1 {
		t.Fatalf("traces: %v, %v", files, err)
	}
	tr, err := trace.Load(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range tr.Header.Subagents {
		names = append(names, d.Name)
	}
	if strings.Join(names, ",") != "codebase_investigator,reviewer" {
		t.Errorf("the trace header lists the subagents %v", names)
	}

	os.Remove(filepath.Join(s.root, "ran.txt"))
	ws, err := workspace.New(s.root)
	if err != nil {
		t.Fatal(err)
	}
	host := &runner.Host{UserConfigDir: s.userDir}
	run, rp := host.Replay(tr, runner.Spec{Workspace: ws, Root: s.root, Proposer: refuseProposals{t},
		Policy: policy.New("").WithMode(policy.ModeDefault), Settings: contract.DefaultSettings()})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rp.SetAbort(cancel)
	var end *agent.RunEnd
	var subagentEnded bool
	for ev, err := range run.Events(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		subagentEnded = subagentEnded || (ev.Type == agent.EventSubagentEnd && ev.Subagent.Agent == "reviewer" && ev.Subagent.End.Reason == agent.StopGoal)
		if ev.Type == agent.EventRunEnd {
			end = ev.End
		}
	}
	if d := rp.Diverged(); d != nil {
		t.Fatalf("the replay diverged: %v", d)
	}
	if end == nil || end.Reason != agent.StopGoal || !subagentEnded {
		t.Errorf("replay ended %+v; the reviewer ran to its goal: %v", end, subagentEnded)
	}
	if got := len(s.gem.Requests()); got != 4 {
		t.Errorf("the replay called the model: %d calls", got)
	}
	if exists(s, "ran.txt") {
		t.Error("the replay ran the command")
	}
}
