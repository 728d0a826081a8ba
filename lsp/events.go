package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// notify sends one agentls/event.
func (r *liveRun) notify(ctx context.Context, ev agent.Event, prop *contract.ProposalReport) {
	b, err := json.Marshal(contract.EventNotification{Seq: r.seq.Add(1), SessionID: r.sessionID(), Event: ev, Proposal: prop})
	if err != nil {
		r.s.log.Error("event: marshal", "err", err)
		return
	}
	if err := r.s.conn.Notify(context.WithoutCancel(ctx), contract.MethodEvent, jsonrpc2.RawMessage(b)); err != nil {
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

// sessionID is the run's session, "" for none.
func (r *liveRun) sessionID() string {
	if r.spec.session == nil {
		return ""
	}
	return r.spec.session.ID()
}
