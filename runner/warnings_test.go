package runner_test

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/trace"
)

// logged is a host's Warn, kept.
type logged struct {
	mu   sync.Mutex
	msgs []string
}

func (l *logged) warn(msg string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.msgs = append(l.msgs, msg)
}

func (l *logged) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.msgs)
}

// startWarnings are the warning events that directly follow the main
// run's run_start, and the number of warning events in all.
func startWarnings(evs []agent.Event) (texts []string, all int) {
	for i, ev := range evs {
		if ev.Type != agent.EventWarning {
			continue
		}
		all++
		if slices.ContainsFunc(evs[:i], func(e agent.Event) bool { return e.Type != agent.EventRunStart && e.Type != agent.EventWarning }) {
			continue
		}
		texts = append(texts, ev.Text)
	}
	return texts, all
}

// The problems found while building a run (a skill that does not parse, a
// workspace agent with a built-in agent's name) reach the run's consumer
// as warning events right after run_start, once each, are traced, and go
// to the host's Warn too, unless the front end shows the events there
// itself. A replay reports the recorded warnings, and not the problems of
// the workspace as it is now.
func TestBuildProblemsAreWarningEvents(t *testing.T) {
	t.Parallel()
	done := geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))
	b := newBench(t, done, done) // the run, and the last one (a replay asks no model)
	write(t, filepath.Join(b.user, "skills", "broken", "SKILL.md"), "---\nname: broken\ndescription: [unclosed\n---\nDo it.\n")
	write(t, filepath.Join(b.root, ".agentls", "agents", "investigator.md"),
		"---\nname: codebase_investigator\ndescription: Mine instead.\n---\nInvestigate my way.\n")
	var log logged
	h := b.host(false)
	h.Warn = log.warn
	run, evs := b.run(h, b.spec(nil, policy.ModeDefault))
	if e := end(evs); e.Reason != agent.StopGoal {
		t.Fatalf("run ended %+v", e)
	}
	got, all := startWarnings(evs)
	if len(got) != 2 || all != 2 {
		t.Fatalf("warnings after run_start %q, %d in all; want the skill's and the agent's, once each", got, all)
	}
	if !strings.Contains(got[0], "custom agent left out") || !strings.Contains(got[0], "agent codebase_investigator left out") {
		t.Errorf("the agent's warning reads %q", got[0])
	}
	if !strings.Contains(got[1], "skill: ") || !strings.Contains(got[1], filepath.Join("broken", "SKILL.md")) {
		t.Errorf("the skill's warning reads %q", got[1])
	}
	for _, ev := range evs {
		if ev.Type == agent.EventWarning && (ev.RunID != run.Config.RunID || ev.Agent != "main") {
			t.Errorf("warning of run %q agent %q, want %q main", ev.RunID, ev.Agent, run.Config.RunID)
		}
	}
	if diff := cmp.Diff(got, log.all()); diff != "" {
		t.Errorf("Warn (-events +Warn):\n%s", diff)
	}

	tr, err := trace.Load(run.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	traced, tracedAll := startWarnings(tr.Events)
	if diff := cmp.Diff(got, traced); diff != "" || tracedAll != 2 {
		t.Errorf("traced warnings (-run +trace), %d in all:\n%s", tracedAll, diff)
	}

	// The workspace changes: a context file now fails its checks. The
	// replay reports what the recording reported, no more; the new problem
	// goes to Warn only.
	write(t, filepath.Join(b.root, "AGENTS.md"), "@.git/config\n")
	var replayLog logged
	rh := b.host(false)
	rh.Warn = replayLog.warn
	spec := b.spec(nil, policy.ModeDefault)
	replay, rp := rh.Replay(tr, spec)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rp.SetAbort(cancel)
	revs := collect(t, replay.Events(ctx))
	if d := rp.Diverged(); d != nil {
		t.Fatalf("the replay diverged: %v", d)
	}
	replayed, replayedAll := startWarnings(revs)
	if diff := cmp.Diff(got, replayed); diff != "" || replayedAll != 2 {
		t.Errorf("replayed warnings (-recorded +replayed), %d in all:\n%s", replayedAll, diff)
	}
	if w := replayLog.all(); len(w) != 1 || !strings.Contains(w[0], "context file: ") {
		t.Errorf("the replay's Warn got %q, want the context file's problem", w)
	}

	// A front end that shows the warning events where Warn writes gets
	// each once, from the events.
	var shownLog logged
	sh := b.host(false)
	sh.Warn, sh.ShowsWarnings = shownLog.warn, true
	_, evs2 := b.run(sh, b.spec(nil, policy.ModeDefault))
	got2, _ := startWarnings(evs2)
	if len(got2) != 3 || len(shownLog.all()) != 0 {
		t.Errorf("with ShowsWarnings: events %q, Warn %q; want three events (agent, skill, context file) and no Warn", got2, shownLog.all())
	}
}
