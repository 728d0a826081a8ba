package acp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/edits"
)

// approver asks the user, with session/request_permission on the call, to
// allow one risky action (a shell command, an MCP tool, a web fetch):
// Allow once; Always allow its command prefixes (the MCP server's tool, the
// web hosts) in this session, or in this workspace (saved to its policy
// file); Deny. As in the other front ends, the answer is for this exact
// call; "always" adds a rule for what policy.AlwaysFor names, command
// prefixes in the session's folder. A client that cannot ask has not
// allowed it.
type approver struct{ t *turn }

// The answers to an approval.
const (
	answerOnce   = "allow"
	answerAlways = "always"
	answerSave   = "always-save"
	answerDeny   = "deny"
	answerGoOn   = "keep-going"
	answerStop   = "stop"
)

func (a *approver) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err // nothing is asked after a cancel
	}
	if ap.Kind == agent.ApprovalLoop {
		return a.keepGoing(ctx, ap)
	}
	t := a.t
	id := wireID(ap.RunID, ap.CallID)
	c := t.call(id, ap.Tool)
	allow, ok := policy.AlwaysFor(ap, t.ss.root)
	options := []acpsdk.PermissionOption{{OptionId: answerOnce, Name: "Allow once", Kind: acpsdk.PermissionOptionKindAllowOnce}}
	if ok {
		list := allow.Quoted()
		options = append(options,
			acpsdk.PermissionOption{OptionId: answerAlways, Name: "Always allow " + list + " in this session", Kind: acpsdk.PermissionOptionKindAllowAlways},
			acpsdk.PermissionOption{OptionId: answerSave, Name: "Always allow " + list + " in this workspace (saved to .agentls/policy.toml)", Kind: acpsdk.PermissionOptionKindAllowAlways})
	}
	options = append(options, acpsdk.PermissionOption{OptionId: answerDeny, Name: "Deny", Kind: acpsdk.PermissionOptionKindRejectOnce})
	question := acpsdk.ToolContent(acpsdk.TextBlock(a.question(ap)))
	option, err := a.ask(ctx, acpsdk.ToolCallUpdate{ToolCallId: id, Title: &c.title, Kind: &c.kind,
		Status: ptr(acpsdk.ToolCallStatusPending), Content: []acpsdk.ToolCallContent{question}, Locations: c.locations}, options)
	if err != nil {
		return false, err
	}
	switch option {
	case answerOnce:
		return true, nil
	case answerAlways, answerSave:
		if !ok {
			return false, nil // not offered: no answer the user was given
		}
		r, err := t.ss.engine.AllowAlways(allow)
		if err != nil {
			t.ss.srv.log.Warn("acp: always allow", "err", err)
			return true, nil // the user allowed this call in any case
		}
		if option == answerSave {
			if _, err := t.ss.engine.Save(r.ID, policy.WorkspaceFile(t.ss.root)); err != nil {
				msg := "the rule was not saved (it holds for this session): " + err.Error()
				if untrusted := (*policy.UntrustedError)(nil); errors.As(err, &untrusted) {
					msg = err.Error() + ". To trust the folder's policy file, run `agentls trust --workspace " + t.ss.root + "` in a terminal: it shows the file's allow rules and asks."
				}
				t.ss.update(ctx, acpsdk.UpdateAgentMessageText(t.separator()+"agentls: "+msg+"\n\n"))
			}
		}
		return true, nil
	}
	return false, nil
}

// keepGoing asks whether a run whose model repeats itself goes on; only
// Keep going says yes.
func (a *approver) keepGoing(ctx context.Context, ap agent.Approval) (bool, error) {
	t := a.t
	t.mu.Lock()
	t.loops++
	id := wireID(cmp.Or(ap.RunID, t.runID), fmt.Sprintf("loop-%d", t.loops))
	t.mu.Unlock()
	title := "The model repeats itself"
	t.ss.update(ctx, acpsdk.StartToolCall(id, title, acpsdk.WithStartKind(acpsdk.ToolKindThink), acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending)))
	option, err := a.ask(ctx, acpsdk.ToolCallUpdate{ToolCallId: id, Title: &title, Kind: ptr(acpsdk.ToolKindThink),
		Status: ptr(acpsdk.ToolCallStatusPending), Content: []acpsdk.ToolCallContent{acpsdk.ToolContent(acpsdk.TextBlock(ap.Description))}},
		[]acpsdk.PermissionOption{
			{OptionId: answerGoOn, Name: "Keep going", Kind: acpsdk.PermissionOptionKindAllowOnce},
			{OptionId: answerStop, Name: "Stop", Kind: acpsdk.PermissionOptionKindRejectOnce},
		})
	status := acpsdk.ToolCallStatusCompleted
	if err != nil || option != answerGoOn {
		status = acpsdk.ToolCallStatusFailed
	}
	t.ss.update(ctx, acpsdk.UpdateToolCall(id, acpsdk.WithUpdateStatus(status)))
	if err != nil {
		return false, err
	}
	return option == answerGoOn, nil
}

// ask sends a permission request and returns the option chosen: "" when
// the client could not ask (not allowed), the turn's error when it was
// cancelled.
func (a *approver) ask(ctx context.Context, tc acpsdk.ToolCallUpdate, options []acpsdk.PermissionOption) (string, error) {
	t := a.t
	resp, err := t.ss.srv.client().RequestPermission(ctx, acpsdk.RequestPermissionRequest{
		SessionId: acpsdk.SessionId(t.ss.id), ToolCall: tc, Options: options})
	if err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		t.ss.srv.log.Warn("acp: the client did not ask", "err", err)
		return "", nil
	}
	option, cancelled := chosen(resp)
	if cancelled {
		return "", cmp.Or(ctx.Err(), context.Canceled)
	}
	return option, nil
}

// question says what is asked: "Run `go test ./...` in /ws?" with every
// line of the command, characters that could hide what runs shown escaped
// and flagged; what the model said the command is for; and the files the
// command will not see as the editor has them. An MCP tool's question names
// the server, the tool and the arguments.
func (a *approver) question(ap agent.Approval) string {
	if ap.Server != "" {
		return mcp.Question(ap, 4000)
	}
	var b strings.Builder
	if ap.Command != "" {
		cmd, hidden := edits.Visible(strings.TrimRight(ap.Command, "\n"))
		fmt.Fprintf(&b, "Run\n\n%s\n", fenced(cmd))
		if ap.Dir != "" {
			where, _ := edits.VisibleLine(a.t.ss.ws.ClientPath(ap.Dir))
			fmt.Fprintf(&b, "\nin %s?", where)
		}
		if hidden {
			b.WriteString("\n\nWarning: the command holds control or invisible characters (shown escaped, as \\x1b or \\u202e).")
		}
	} else {
		fmt.Fprintf(&b, "Allow agentls to use %s?", ap.Tool)
	}
	if d := strings.TrimSpace(ap.Description); d != "" {
		d, _ = edits.VisibleLine(d)
		fmt.Fprintf(&b, "\n\n%s", d)
	}
	if ap.Command != "" {
		if names := a.t.fs.unsaved(); len(names) > 0 {
			fmt.Fprintf(&b, "\n\nUnsaved in the editor, not seen by the command: %s.", strings.Join(names, ", "))
		}
	}
	return b.String()
}
