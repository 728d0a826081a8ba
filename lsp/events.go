package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// MethodEvent is the structured event notification plugins opt in to
// (setting "events"). docs/events.md documents its payloads.
const MethodEvent = "agentls/event"

// OutcomeStaged is the outcome of an edit_decided event in a confirm: run
// run: the change is kept for the proposal at the end of the run.
const OutcomeStaged agent.Outcome = "staged"

// eventNotification is the payload of agentls/event.
type eventNotification struct {
	Seq int64 `json:"seq"`
	agent.Event
	// Proposal is, on run_end of a confirm: run run, the run's one proposal
	// and what became of it.
	Proposal *ProposalReport `json:"proposal,omitempty"`
}

// A ProposalReport tells what became of the one proposal of a confirm: run
// run.
type ProposalReport struct {
	// Outcome: applied, rejected, conflict, failed, or discarded (the run did
	// not reach its goal, or was cancelled, so nothing was proposed); none
	// when the run staged no change.
	Outcome agent.Outcome  `json:"outcome"`
	Message string         `json:"message,omitempty"`
	Files   []FileDecision `json:"files,omitempty"`
	// Summary is a line for the user, as the progress end message ends.
	Summary string `json:"summary"`
}

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

// notify sends one agentls/event.
func (r *liveRun) notify(ctx context.Context, ev agent.Event, prop *ProposalReport) {
	b, err := json.Marshal(eventNotification{Seq: r.seq.Add(1), Event: ev, Proposal: prop})
	if err != nil {
		r.s.log.Error("event: marshal", "err", err)
		return
	}
	if err := r.s.conn.Notify(context.WithoutCancel(ctx), MethodEvent, jsonrpc2.RawMessage(b)); err != nil {
		r.s.log.Debug("event: notify", "err", err)
	}
}

// showMessage shows msg, as information when ok, else as a warning, with
// the characters that could hide what it says escaped.
func (s *Server) showMessage(ctx context.Context, ok bool, msg string) {
	msg, _ = edits.Visible(msg)
	typ := protocol.MessageTypeInfo
	if !ok {
		typ = protocol.MessageTypeWarning
	}
	s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: typ, Message: msg})
}
