package contract

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
)

// MethodEvent is the structured event notification plugins opt in to
// (setting "events"). docs/events.md documents its payloads.
const MethodEvent = "agentls/event"

// OutcomeStaged is the outcome of an edit_decided event in a confirm: run
// run: the change is kept for the proposal at the end of the run.
const OutcomeStaged = agent.OutcomeStaged

// EventNotification is the payload of agentls/event: a harness event with
// the run's sequence number.
type EventNotification struct {
	// Seq numbers a run's notifications from 1, so a plugin can tell it
	// missed none.
	Seq int64 `json:"seq"`
	// SessionID is the session of the event's run.
	SessionID string `json:"sessionId,omitempty"`
	agent.Event
	// Proposal is, on run_end of a confirm: run run, the run's one proposal
	// and what became of it.
	Proposal *ProposalReport `json:"proposal,omitempty"`
}

// A ProposalReport tells what became of the one proposal of a confirm: run
// run.
type ProposalReport struct {
	// Outcome: applied, rejected, conflict, failed, withdrawn (the run was
	// cancelled while the user decided), or discarded (the run did not reach
	// its goal, so nothing was proposed). A run that staged no change has no
	// report.
	Outcome agent.Outcome  `json:"outcome"`
	Message string         `json:"message,omitempty"`
	Files   []FileDecision `json:"files,omitempty"`
	// Summary is a line for the user, as the progress end message ends.
	Summary string `json:"summary"`
}

// SetOutcome gives the proposal and each of its files outcome o.
func (rep *ProposalReport) SetOutcome(o agent.Outcome) {
	rep.Outcome = o
	for i := range rep.Files {
		rep.Files[i].Outcome = o
	}
}

// OutcomeDiscarded is the outcome of a ProposalReport whose run did not
// reach its goal: its staged changes were not proposed.
const OutcomeDiscarded agent.Outcome = "discarded"

// A FileDecision is one file's part of a proposal.
type FileDecision struct {
	Name          string        `json:"name"`
	Create        bool          `json:"create,omitempty"`
	Added         int           `json:"added"`
	Deleted       int           `json:"deleted"`
	Outcome       agent.Outcome `json:"outcome"`
	Message       string        `json:"message,omitempty"`
	RejectedHunks []int         `json:"rejectedHunks,omitempty"`
}

// The closed vocabularies of events. A test checks them against the
// constants package agent declares, so a new kind cannot be missed here,
// in the schemas, in the plugins or in docs/events.md.
var (
	EventTypes = []agent.EventType{
		agent.EventRunStart, agent.EventTurnStart, agent.EventThought, agent.EventText, agent.EventToolCall,
		agent.EventApprovalRequested, agent.EventApprovalDecided, agent.EventEditProposed, agent.EventEditDecided,
		agent.EventToolResult, agent.EventSubagentStart, agent.EventSubagentActivity, agent.EventSubagentEnd,
		agent.EventCompressed, agent.EventModelRouted, agent.EventUsage, agent.EventRetry, agent.EventWarning,
		agent.EventTurnEnd, agent.EventRunEnd,
	}
	StopReasons = []agent.StopReason{
		agent.StopGoal, agent.StopTimeout, agent.StopMaxTurns, agent.StopAborted, agent.StopError,
		agent.StopNoCompleteTask, agent.StopLoop, agent.StopBudget,
	}
	// RevertOutcomes are what became of a file in a revert.
	RevertOutcomes = []string{session.Reverted, session.Deleted, session.Emptied, session.Conflict, session.Declined, session.Failed}
	// Outcomes are what became of a proposed change (edit_decided), and of
	// a confirm: run proposal (ProposalReport).
	Outcomes = []agent.Outcome{
		agent.OutcomeApplied, agent.OutcomeRejected, agent.OutcomeConflict, agent.OutcomeFailed,
		agent.OutcomeStaged, agent.OutcomeWithdrawn, OutcomeDiscarded,
	}
)
