package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// termProposer asks on the terminal before it writes each change to disk:
// y applies it, n rejects it, a applies it and every later one of the run,
// d shows the whole diff, q stops the run. With --yes it applies every
// change without asking.
type termProposer struct {
	p     *printer
	in    *lines
	quit  func() // stops the run
	mu    sync.Mutex
	apply bool // apply without asking: --yes, or an "always" answer
}

const proposalHelp = "y = apply this change, n = reject it, a = apply it and all further changes of this run, d = show the whole diff, q = stop the run"

func (t *termProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	t.mu.Lock()
	ask := !t.apply
	t.mu.Unlock()
	if ask {
		// Nothing is asked about a change that could no longer be written
		// (WriteChange checks again after the answer).
		dest, d, ok := runner.CheckLink(ch)
		if !ok {
			return d, nil
		}
		if d, ok := runner.CheckDisk(dest, ch); !ok {
			return d, nil
		}
		answer, err := t.p.ask(ctx, t.in, fmt.Sprintf("Apply the change to %s? [y/n/a/d/q] ", ch.Name), proposalHelp,
			func() { t.p.diff(edits.Unified(ch.Name, ch.Old, ch.New), 0) })
		switch {
		case errors.Is(err, errNoAnswer):
			return agent.Decision{Outcome: agent.OutcomeRejected, Message: "no answer on the terminal (use --yes to apply without asking)"}, nil
		case err != nil:
			return agent.Decision{}, err
		case answer == answerQuit:
			t.quit()
			return agent.Decision{}, context.Canceled
		case answer == answerNo:
			return agent.Decision{Outcome: agent.OutcomeRejected}, nil
		case answer == answerAlways:
			t.mu.Lock()
			t.apply = true
			t.mu.Unlock()
		}
	}
	return runner.WriteChange(ch), nil
}

// diskProposer writes every change to disk (a replay's scratch copy).
type diskProposer struct{}

func (diskProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	return runner.WriteChange(ch), nil
}

// overlayProposer applies changes in memory, as open buffers of the
// workspace: later reads see them, the disk never does.
type overlayProposer struct {
	ws *workspace.Workspace
}

func (o overlayProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	path, d, ok := runner.CheckLink(ch) // the file the tools read: where a symlink leads
	if !ok {
		return d, nil
	}
	f, err := o.ws.ReadFile(path)
	if d, ok := runner.CheckText(err == nil && (f.Exists || f.Open), f.Text, ch); !ok {
		return d, nil
	}
	o.ws.Open(path, ch.New, f.Version+1)
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// scratchProposer writes the changes inside root (a replay's scratch copy)
// to disk and applies the others in memory.
type scratchProposer struct {
	root      string
	disk, mem agent.Proposer
}

func (s scratchProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	// Where the change would be written: a symlink's target.
	rel, err := filepath.Rel(s.root, cmp.Or(ch.Target, ch.Path))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return s.mem.Propose(ctx, ch)
	}
	return s.disk.Propose(ctx, ch)
}
