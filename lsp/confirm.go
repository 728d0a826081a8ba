package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// The answers of the confirmation question.
const (
	answerApply    = "Apply"
	answerReject   = "Reject"
	answerShowDiff = "Show diff"
)

// ask asks the user to confirm the proposal with window/showMessageRequest,
// for clients that cannot confirm annotated edits themselves (Neovim 0.7
// applies them silently). "Show diff" opens the unified diff with
// window/showDocument where the client can (else the diff goes to the log)
// and asks again. A dismissed question or an error reply is a rejection;
// ok false comes with the reason for the model.
func (p *proposal) ask(ctx context.Context) (ok bool, reason string, err error) {
	question := p.question()
	msg := question
	for {
		if err := ctx.Err(); err != nil {
			return false, "", err // nothing is asked after a cancel
		}
		p.r.report(ctx, "Waiting for your confirmation", -1)
		item, err := p.s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeInfo,
			Message: msg,
			Actions: []protocol.MessageActionItem{{Title: answerApply}, {Title: answerReject}, {Title: answerShowDiff}},
		})
		if err != nil {
			if ctx.Err() != nil {
				return false, "", ctx.Err() // the question was withdrawn with $/cancelRequest
			}
			var rpcErr *jsonrpc2.Error
			if errors.As(err, &rpcErr) {
				return false, rpcErr.Message, nil
			}
			return false, "", err
		}
		switch {
		case item == nil:
			return false, "the user dismissed the question", nil
		case item.Title == answerApply:
			return true, "", nil
		case item.Title == answerReject:
			return false, "", nil
		case item.Title == answerShowDiff:
			msg = p.showDiff(ctx, question)
		default:
			return false, "unknown answer " + item.Title, nil
		}
	}
}

// question is the confirmation question: the files, the diff stat and the
// agent's reason.
func (p *proposal) question() string {
	var b strings.Builder
	if len(p.files) == 1 {
		f := p.files[0]
		verb := "change"
		switch {
		case f.create:
			verb = "create"
		case f.delete:
			verb = "delete"
		}
		fmt.Fprintf(&b, "agentls wants to %s %s (%s)", verb, f.name, p.stat())
		if f.reason != "" {
			fmt.Fprintf(&b, ": %s", shorten(f.reason, 200))
		}
	} else {
		fmt.Fprintf(&b, "agentls wants to change %d files (%s): %s", len(p.files), p.stat(), p.names())
	}
	b.WriteString(". Apply?")
	shown, _ := edits.Visible(b.String()) // names and reasons come from the model
	return shown
}

// showDiff shows the proposal's unified diff and returns the question to
// ask again, which points at the diff when the client could not open it.
func (p *proposal) showDiff(ctx context.Context, question string) string {
	diff := p.diff()
	name := filepath.Join("diffs", fmt.Sprintf("%s-%d.diff", p.r.spec.h.id, p.r.diffs.Add(1)))
	if p.r.spec.caps.showDocument && p.s.showFile(ctx, name, diff) {
		return question
	}
	diff, _ = edits.Visible(diff)
	p.s.client.LogMessage(context.WithoutCancel(ctx), &protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: "agentls: proposed change:\n" + diff})
	return question + " (The diff is in the log.)"
}

// diff is the proposal as one unified diff.
func (p *proposal) diff() string {
	var b strings.Builder
	for _, f := range p.files {
		b.WriteString(edits.Unified(filepath.ToSlash(f.name), f.old, f.new))
	}
	return b.String()
}
