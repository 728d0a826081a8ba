package runner

import (
	"cmp"
	"context"
	"errors"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
)

// ErrNoSessions reports a follow-up on a host that keeps no sessions.
var ErrNoSessions = errors.New("this agentls keeps no sessions")

// Session returns the session a run will belong to, held for runID:
// session id of the workspace folder root, or a new session titled title
// when id is "". It is nil, with no error, for a new run of a host that
// keeps no sessions. Put it in the run's Spec; if the run is not built,
// Close it.
func (h *Host) Session(root, id, runID, title string) (*session.Writer, error) {
	if h.Sessions == nil {
		if id != "" {
			return nil, ErrNoSessions
		}
		return nil, nil
	}
	if id == "" {
		var err error
		if id, err = h.Sessions.Create(root, title); err != nil {
			return nil, err
		}
	}
	return h.Sessions.Lock(root, id, runID)
}

// sessionProposer records in a session each change the user accepts.
type sessionProposer struct {
	next agent.Proposer
	s    *session.Writer
}

// recorder wraps p so that the changes the user accepts are kept in s,
// for a revert.
func recorder(p agent.Proposer, s *session.Writer) agent.Proposer {
	if p == nil {
		return nil
	}
	return &sessionProposer{next: p, s: s}
}

func (p *sessionProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	d, err := p.next.Propose(ctx, ch)
	if err == nil {
		record(p.s, ch, d)
	}
	return d, err
}

// Record keeps in the run's session a change the user decided on outside
// the run's Proposer (the one proposal of a confirm: run run).
func (r *Run) Record(ch agent.Change, d agent.Decision) {
	if r.session != nil {
		record(r.session, ch, d)
	}
}

// record keeps an accepted change: the file as it was before the editor
// applied it and as it was after, the user's partial decisions and
// rebases included.
func record(s *session.Writer, ch agent.Change, d agent.Decision) {
	if d.Outcome != agent.OutcomeApplied {
		return
	}
	before, after := ch.Old, ch.New
	if d.Rebased {
		before = d.Base
	}
	if d.Final != "" || d.Rebased {
		after = d.Final
	}
	if before == after && !ch.Create {
		return
	}
	// The file the user accepted a change to: where a symlink led then,
	// so that a revert undoes that file wherever the link leads by then.
	s.Change(session.Change{Path: cmp.Or(ch.Target, ch.Path), Name: ch.Name, Before: before, After: after, Create: ch.Create})
}
