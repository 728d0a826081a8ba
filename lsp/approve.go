package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// The answers of an approval question; "always" answers name what they
// allow: command prefixes, an MCP server's tool, web hosts.
const (
	approveOnce   = "Allow once"
	approveDeny   = "Deny"
	approveAlways = "Always allow %s"
	approveSave   = "Always allow %s in this workspace (save)"
)

// approver asks the user in the editor, with window/showMessageRequest, to
// allow one risky action of a run: "Run `go test ./...` in <folder>?" with
// Allow once, Always allow `go test`, the same saved to the workspace's
// policy file, and Deny. The answer is for this call only (its exact command
// and folder); "always" adds a session rule for the command's prefixes in
// the run's workspace folder, for an MCP call that server's tool, for a web
// fetch its hosts (policy.AlwaysFor).
type approver struct {
	s    *Server
	eng  *policy.Engine
	ws   *workspace.Workspace
	root string // the run's workspace folder
}

// approver returns the Approver of a run.
func (s *Server) approver(spec runSpec) *approver {
	return &approver{s: s, eng: s.approvals.engine(s.cfg.UserConfigDir), ws: spec.ws, root: spec.root}
}

func (a *approver) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err // nothing is asked after a cancel
	}
	if ap.Kind == agent.ApprovalLoop {
		return a.keepGoing(ctx, ap)
	}
	allow, ok := policy.AlwaysFor(ap, a.root)
	actions := []protocol.MessageActionItem{{Title: approveOnce}}
	var always, save string
	if ok {
		list := allow.Quoted()
		always, save = fmt.Sprintf(approveAlways, list), fmt.Sprintf(approveSave, list)
		actions = append(actions, protocol.MessageActionItem{Title: always}, protocol.MessageActionItem{Title: save})
	}
	actions = append(actions, protocol.MessageActionItem{Title: approveDeny})
	item, err := a.s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: a.question(ap), Actions: actions,
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err() // the question was withdrawn with $/cancelRequest
		}
		// A client that cannot ask (an error reply) has not allowed it.
		a.s.log.Warn("approval: the editor did not ask", "err", err)
		return false, nil
	}
	if item == nil {
		return false, nil // dismissed
	}
	switch {
	case item.Title == approveOnce:
		return true, nil
	case ok && (item.Title == always || item.Title == save):
		r, err := a.eng.AllowAlways(allow)
		if err != nil {
			a.s.log.Warn("approval: always allow", "err", err)
			return true, nil // the user allowed this call in any case
		}
		if item.Title == save {
			if _, err := a.eng.Save(r.ID, policy.WorkspaceFile(a.root)); err != nil {
				msg := "agentls: the rule was not saved: " + err.Error()
				if untrusted := (*policy.UntrustedError)(nil); errors.As(err, &untrusted) {
					msg = "agentls: " + err.Error() + ". " + trustAdvice
				}
				a.s.log.Warn(msg)
				a.s.showMessage(ctx, false, msg)
			}
		}
		return true, nil
	}
	return false, nil
}

// The answers of the loop question.
const (
	loopKeepGoing = "Keep going"
	loopStop      = "Stop"
)

// keepGoing asks whether a run whose model repeats itself goes on; only
// Keep going says yes.
func (a *approver) keepGoing(ctx context.Context, ap agent.Approval) (bool, error) {
	item, err := a.s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type:    protocol.MessageTypeWarning,
		Message: "agentls: " + shorten(ap.Description, 300),
		Actions: []protocol.MessageActionItem{{Title: loopKeepGoing}, {Title: loopStop}},
	})
	if err != nil {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		a.s.log.Warn("loop question: the editor did not ask", "err", err)
		return false, nil
	}
	return item != nil && item.Title == loopKeepGoing, nil
}

// maxCommandLines bounds the lines of a command a question shows; the
// rest are counted.
const maxCommandLines = 40

// question asks to allow ap: "Run `go test ./...` in /ws?", every line of
// a longer command, and what the model said the command is for. Characters
// that could hide what runs are shown escaped, and flagged.
func (a *approver) question(ap agent.Approval) string {
	var b strings.Builder
	if ap.Server != "" {
		// The arguments are what is allowed: shown, escaped, up to a
		// length a message can hold.
		return mcp.Question(ap, 2000)
	}
	if ap.Command != "" {
		cmd, hidden := edits.Visible(strings.TrimRight(ap.Command, "\n"))
		lines := strings.Split(cmd, "\n")
		where := ""
		if ap.Dir != "" {
			where, _ = edits.VisibleLine(a.ws.ClientPath(ap.Dir))
			where = " in " + where
		}
		if len(lines) == 1 {
			fmt.Fprintf(&b, "Run `%s`%s?", lines[0], where)
		} else {
			fmt.Fprintf(&b, "Run this command of %d lines%s?", len(lines), where)
			for i, l := range lines {
				if i == maxCommandLines {
					fmt.Fprintf(&b, "\n(%d more lines not shown)", len(lines)-i)
					break
				}
				b.WriteString("\n    " + l)
			}
		}
		if hidden {
			b.WriteString("\nWarning: the command holds control or invisible characters (shown escaped, as \\x1b or \\u202e).")
		}
	} else {
		fmt.Fprintf(&b, "Allow agentls to use %s?", ap.Tool)
	}
	if d := strings.TrimSpace(ap.Description); d != "" {
		d, _ = edits.VisibleLine(shorten(d, 300))
		fmt.Fprintf(&b, "\n%s", d)
	}
	if ap.Command != "" {
		if names := a.s.unsavedNames(a.ws, a.root); len(names) > 0 {
			fmt.Fprintf(&b, "\nUnsaved in the editor, not seen by the command: %s.", strings.Join(names, ", "))
		}
	}
	return b.String()
}
