package agent

import (
	"context"

	"github.com/agentls/agentls/edits"
)

// Propose sends a change to the user through p and reports it on the run's
// stream (edit_proposed, then edit_decided). The run's clock stops while the
// user decides.
func (c *Call) Propose(ctx context.Context, p Proposer, ch Change) (Decision, error) {
	ch.RunID, ch.CallID = c.RunID, c.ID
	stat := edits.DiffStat(ch.Old, ch.New)
	info := EditInfo{Path: ch.Path, Name: ch.Name, Added: stat.Added, Deleted: stat.Deleted, Create: ch.Create, Reason: ch.Reason,
		Diff: edits.Unified(ch.Name, ch.Old, ch.New)}
	c.Emit(Event{Type: EventEditProposed, Call: c.ref(), Edit: &info})
	resume := c.UserWait()
	d, err := p.Propose(ctx, ch)
	resume()
	decided := info
	decided.Diff = ""
	if err != nil {
		// The proposal is withdrawn: a display must not wait for its answer.
		decided.Outcome, decided.Message = OutcomeWithdrawn, err.Error()
		c.Emit(Event{Type: EventEditDecided, Call: c.ref(), Edit: &decided})
		return d, err
	}
	decided.Outcome, decided.Message, decided.Rejected = d.Outcome, d.Message, d.RejectedHunks
	c.Emit(Event{Type: EventEditDecided, Call: c.ref(), Edit: &decided})
	return d, nil
}

// Approve asks the user through a to allow an action, and reports it on the
// run's stream (approval_requested, then approval_decided). The run's clock
// stops while the user decides.
func (c *Call) Approve(ctx context.Context, a Approver, ap Approval) (bool, error) {
	ap.RunID, ap.CallID = c.RunID, c.ID
	c.Emit(Event{Type: EventApprovalRequested, Call: c.ref(), Approval: &ap})
	resume := c.UserWait()
	ok, err := a.Approve(ctx, ap)
	resume()
	decided := ap
	if err != nil {
		// The question is withdrawn: a display must not wait for its answer.
		no := false
		decided.Allowed, decided.Withdrawn = &no, true
		c.Emit(Event{Type: EventApprovalDecided, Call: c.ref(), Approval: &decided})
		return false, err
	}
	decided.Allowed = &ok
	c.Emit(Event{Type: EventApprovalDecided, Call: c.ref(), Approval: &decided})
	return ok, nil
}

func (c *Call) ref() *ToolCall { return &ToolCall{ID: c.ID, Name: c.Name} }
