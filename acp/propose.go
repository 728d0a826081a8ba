package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/runner"
)

// proposer shows each change as a diff on its tool call and, unless the
// session's mode is autoEdit, asks with session/request_permission: Apply,
// Apply all of this session (the session switches to autoEdit, and says
// so), Reject. An applied change is written through the client's
// fs/write_text_file when it offers it (its buffer and its review see it),
// else to disk in one step; either way only where the tool checked it
// would go, and only over the text it was computed against. Nothing is
// written once the turn is cancelled.
type proposer struct{ t *turn }

// The answers to a change.
const (
	answerApply    = "apply"
	answerApplyAll = "apply-all"
	answerReject   = "reject"
)

func (p *proposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	if err := ctx.Err(); err != nil {
		return agent.Decision{}, err
	}
	t := p.t
	id := wireID(ch.RunID, ch.CallID)
	c := t.call(id, ch.Tool)
	var old *string
	if !ch.Create {
		old = &ch.Old
	}
	diff := acpsdk.ToolCallContent{Diff: &acpsdk.ToolCallContentDiff{Type: "diff", Path: t.ss.ws.ClientPath(cmp.Or(ch.Target, ch.Path)), OldText: old, NewText: ch.New}}
	t.setDiff(id, diff)
	t.ss.update(ctx, acpsdk.UpdateToolCall(id, acpsdk.WithUpdateContent([]acpsdk.ToolCallContent{diff})))
	switch t.ss.currentMode() {
	case policy.ModePlan:
		return agent.Decision{Outcome: agent.OutcomeRejected, Message: "the user switched the session to plan mode (read-only) while you worked"}, nil
	case policy.ModeAutoEdit:
	default:
		d, ok, err := p.ask(ctx, id, c, diff)
		if err != nil || !ok {
			return d, err
		}
	}
	return p.write(ctx, ch)
}

// ask asks the user to allow a change; ok says it is allowed, else d is
// the answer.
func (p *proposer) ask(ctx context.Context, id acpsdk.ToolCallId, c call, diff acpsdk.ToolCallContent) (d agent.Decision, ok bool, err error) {
	t := p.t
	resp, err := t.ss.srv.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(t.ss.id),
		ToolCall: acpsdk.ToolCallUpdate{ToolCallId: id, Title: &c.title, Kind: ptr(acpsdk.ToolKindEdit),
			Status: ptr(acpsdk.ToolCallStatusPending), Content: []acpsdk.ToolCallContent{diff}, Locations: c.locations},
		Options: []acpsdk.PermissionOption{
			{OptionId: answerApply, Name: "Apply", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: answerApplyAll, Name: "Apply all changes of this session (auto edit)", Kind: acpsdk.PermissionOptionKindAllowAlways},
			{OptionId: answerReject, Name: "Reject", Kind: acpsdk.PermissionOptionKindRejectOnce},
		},
	})
	if err != nil {
		if ctx.Err() != nil {
			return agent.Decision{}, false, ctx.Err()
		}
		// A client that cannot ask has not allowed it.
		return agent.Decision{Outcome: agent.OutcomeRejected, Message: "the editor could not ask the user: " + err.Error()}, false, nil
	}
	switch option, cancelled := chosen(resp); {
	case cancelled:
		return agent.Decision{}, false, cmp.Or(ctx.Err(), context.Canceled)
	case option == answerApply:
		return agent.Decision{}, true, nil
	case option == answerApplyAll:
		t.ss.switchMode(ctx, policy.ModeAutoEdit)
		return agent.Decision{}, true, nil
	case option == answerReject:
		return agent.Decision{Outcome: agent.OutcomeRejected}, false, nil
	default:
		return agent.Decision{Outcome: agent.OutcomeRejected, Message: fmt.Sprintf("the editor answered with an option it was not offered (%q)", option)}, false, nil
	}
}

// write writes an allowed change.
func (p *proposer) write(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	t := p.t
	dest, d, ok := runner.CheckLink(ch)
	if !ok {
		return d, nil
	}
	if !t.ss.srv.clientCaps().Fs.WriteTextFile {
		if err := ctx.Err(); err != nil {
			return agent.Decision{}, err
		}
		return runner.WriteChange(ch), nil
	}
	// The text check, through the view the change was computed in, of the
	// file the tool read (where a symlink leads).
	cur, err := t.fs.ReadFile(dest)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		if ctx.Err() != nil {
			return agent.Decision{}, ctx.Err()
		}
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	}
	if d, ok := runner.CheckText(err == nil, cur, ch); !ok {
		return d, nil
	}
	if err := ctx.Err(); err != nil {
		return agent.Decision{}, err
	}
	_, err = t.ss.srv.client().WriteTextFile(ctx, acpsdk.WriteTextFileRequest{
		SessionId: acpsdk.SessionId(t.ss.id), Path: t.ss.ws.ClientPath(dest), Content: ch.New})
	if err != nil {
		if ctx.Err() != nil {
			return agent.Decision{}, ctx.Err()
		}
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: "the editor could not write it: " + err.Error()}, nil
	}
	t.fs.see(dest)
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// switchMode changes the session's mode on the agent's side, and tells
// the client both ways it shows modes.
func (ss *session) switchMode(ctx context.Context, m policy.Mode) {
	ss.mu.Lock()
	ss.mode = m
	ss.mu.Unlock()
	ss.update(ctx, acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(m)}})
	_, options := ss.state()
	ss.update(ctx, acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: options}})
}

// chosen is the option the user chose, or that the turn was cancelled.
func chosen(resp acpsdk.RequestPermissionResponse) (option string, cancelled bool) {
	if o := resp.Outcome.Selected; o != nil {
		return string(o.OptionId), false
	}
	return "", true
}
