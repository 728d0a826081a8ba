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

// A diff this short is shown in the question itself.
const (
	inlineDiffLines = 24
	inlineDiffBytes = 2000
)

// ask asks the user to confirm the proposal with window/showMessageRequest,
// for clients that cannot confirm annotated edits themselves (Neovim 0.7
// applies them silently, 0.12 cannot report a No, eglot declares no
// annotations). The diff is shown where the question is asked: in the
// question itself when it is short; otherwise "Show diff" opens it with
// window/showDocument where the client can, else sends it as a warning
// message (which Neovim and eglot show) and saves it in the cache
// directory, and asks again. A dismissed question or an error reply is a
// rejection; ok false comes with the reason for the model.
func (p *proposal) ask(ctx context.Context) (ok bool, reason string, err error) {
	diff := p.diff()
	actions := []protocol.MessageActionItem{{Title: answerApply}, {Title: answerReject}}
	question := p.question("")
	if inline(diff) {
		question = p.question(diff)
	} else {
		actions = append(actions, protocol.MessageActionItem{Title: answerShowDiff})
	}
	msg := question
	for {
		if err := ctx.Err(); err != nil {
			return false, "", err // nothing is asked after a cancel
		}
		p.r.report(ctx, "Waiting for your confirmation", -1)
		item, err := p.s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
			Type:    protocol.MessageTypeInfo,
			Message: msg,
			Actions: actions,
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
		case item.Title == answerShowDiff && len(actions) == 3:
			msg = question + p.showDiff(ctx, diff)
		default:
			return false, "unknown answer " + item.Title, nil
		}
	}
}

// inline reports whether a diff is short enough for the question itself.
func inline(diff string) bool {
	return len(diff) <= inlineDiffBytes && strings.Count(diff, "\n") <= inlineDiffLines
}

// question is the confirmation question: the files, the diff stat, the
// agent's reason and, when given, the diff.
func (p *proposal) question(diff string) string {
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
	if diff != "" {
		fmt.Fprintf(&b, ".\n\n%s\nApply?", strings.TrimRight(diff, "\n"))
	} else {
		b.WriteString(". Apply?")
	}
	shown, _ := edits.Visible(b.String()) // names, reasons and the diff come from the model
	return shown
}

// showDiff shows a long diff and returns what the question asked again
// says about where it is.
func (p *proposal) showDiff(ctx context.Context, diff string) string {
	name := filepath.Join("diffs", fmt.Sprintf("%s-%d.diff", p.r.spec.h.id, p.r.diffs.Add(1)))
	path, werr := p.s.writeCacheFile(name, diff)
	if werr == nil && p.r.spec.caps.showDocument && p.s.showPath(ctx, path) {
		return " (The diff is open in the editor.)"
	}
	diff, _ = edits.Visible(diff)
	p.s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
		Message: "agentls: proposed change:\n" + diff})
	if werr != nil {
		return " (The diff is in the message above.)"
	}
	return " (The diff is in the message above and in " + path + ".)"
}

// diff is the proposal as one unified diff.
func (p *proposal) diff() string {
	var b strings.Builder
	for _, f := range p.files {
		b.WriteString(edits.Unified(filepath.ToSlash(f.name), f.old, f.new))
	}
	return b.String()
}
