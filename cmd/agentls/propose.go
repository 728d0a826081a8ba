package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
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
	if d, ok := stale(ch); !ok {
		return d, nil
	}
	t.mu.Lock()
	ask := !t.apply
	t.mu.Unlock()
	if ask {
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
	return writeChange(ch), nil
}

// writeChange writes a change to disk, if the file is still what the change was
// computed against and its path still leads where the tool checked it:
// the file written is the real one the user was shown, never one a symlink
// swapped in since.
func writeChange(ch agent.Change) agent.Decision {
	dest := ch.Path
	if ch.Target != "" {
		real, err := workspace.Real(ch.Path)
		if err != nil || real != ch.Target {
			return agent.Decision{Outcome: agent.OutcomeConflict,
				Message: fmt.Sprintf("%s no longer leads to the file that was checked (a symlink changed); nothing was written", ch.Name)}
		}
		dest = real
	}
	if d, ok := stale(ch); !ok {
		return d
	}
	if err := writeAtomic(dest, ch.New); err != nil {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}
	}
	return agent.Decision{Outcome: agent.OutcomeApplied}
}

// stale checks that the file on disk is still what the change was computed
// against; when it is not, d is the answer.
func stale(ch agent.Change) (d agent.Decision, ok bool) {
	cur, err := os.ReadFile(ch.Path)
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, false
	case (err == nil) == ch.Create, err == nil && string(cur) != ch.Old:
		return agent.Decision{Outcome: agent.OutcomeConflict}, false
	}
	return agent.Decision{}, true
}

// writeAtomic replaces path's content in one step, keeping its mode: the
// new content goes to a temporary file beside it, renamed over it.
func writeAtomic(path, content string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentls-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// diskProposer writes every change to disk (a replay's scratch copy).
type diskProposer struct{}

func (diskProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	return writeChange(ch), nil
}

// overlayProposer applies changes in memory, as open buffers of the
// workspace: later reads see them, the disk never does.
type overlayProposer struct {
	ws *workspace.Workspace
}

func (o overlayProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	f, err := o.ws.ReadFile(ch.Path)
	exists := err == nil && (f.Exists || f.Open)
	if exists == ch.Create || (exists && f.Text != ch.Old) {
		return agent.Decision{Outcome: agent.OutcomeConflict}, nil
	}
	o.ws.Open(ch.Path, ch.New, f.Version+1)
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// scratchProposer writes the changes inside root (a replay's scratch copy)
// to disk and applies the others in memory.
type scratchProposer struct {
	root      string
	disk, mem agent.Proposer
}

func (s scratchProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	rel, err := filepath.Rel(s.root, ch.Path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return s.mem.Propose(ctx, ch)
	}
	return s.disk.Propose(ctx, ch)
}
