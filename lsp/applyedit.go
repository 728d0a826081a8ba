package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

// closedSettle bounds the wait for the didOpen of a file that was not open
// when its edit was sent.
const closedSettle = 500 * time.Millisecond

// edit builds the proposal's WorkspaceEdit: versioned TextDocumentEdits
// with one change annotation per file (needsConfirmation, for clients that
// confirm annotated edits themselves, unless autoEdit), CreateFile where the
// client can create, and the changes map for clients without
// documentChanges (which carries no annotation: the server asked first).
func (p *proposal) edit() (*protocol.WorkspaceEdit, error) {
	caps := p.r.spec.caps
	annotate := p.annotated()
	var fcs []lspedit.FileChange
	ops := false // resource operations: documentChanges however the client declares them
	for _, f := range p.files {
		fc := lspedit.FileChange{URI: p.uri(f), Old: f.old, New: f.new, Version: f.version}
		if f.create && caps.canCreate() {
			fc.Create, ops = true, true
		}
		if f.delete {
			fc.Delete, ops = true, true // Inv: only proposed where caps.canDelete()
		}
		fcs = append(fcs, fc)
	}
	if !caps.documentChanges && !ops {
		for _, f := range p.files {
			if f.create {
				return nil, errors.New("the editor cannot create files (it supports neither documentChanges nor the create resource operation)")
			}
		}
		m, err := lspedit.ChangesMap(fcs, caps.encoding)
		if err != nil {
			return nil, err
		}
		return &protocol.WorkspaceEdit{Changes: m}, nil
	}
	we := &protocol.WorkspaceEdit{}
	for i, fc := range fcs {
		one, err := lspedit.WorkspaceEdit([]lspedit.FileChange{fc}, lspedit.Options{
			Encoding:          caps.encoding,
			Label:             p.annotationLabel(p.files[i]),
			NeedsConfirmation: annotate,
			AnnotationID:      contract.AnnotationID(p.r.spec.h.id, int(p.r.annotations.Add(1))),
		})
		if errors.Is(err, lspedit.ErrNoChange) {
			continue
		}
		if err != nil {
			return nil, err
		}
		we.DocumentChanges = append(we.DocumentChanges, one.DocumentChanges...)
		if one.ChangeAnnotations != nil {
			if we.ChangeAnnotations == nil {
				we.ChangeAnnotations = make(map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation)
			}
			maps.Copy(we.ChangeAnnotations, one.ChangeAnnotations)
		}
	}
	return we, nil
}

// annotationLabel labels a file's change with the agent's reason.
func (p *proposal) annotationLabel(f fileChange) string {
	if f.reason != "" {
		return "agentls: " + f.name + " — " + shorten(f.reason, 80)
	}
	return "agentls: " + f.name
}

// annotated reports whether the edit goes out annotated for the client to
// confirm; otherwise the server asked first (or autoEdit asks no one).
func (p *proposal) annotated() bool {
	return !p.r.autoEdit() && p.r.spec.caps.confirms()
}

func (p *proposal) uri(f fileChange) uri.URI {
	return workspace.URIFromPath(p.r.spec.ws.ClientPath(f.path))
}

func (p *proposal) label() string {
	if len(p.files) == 1 {
		return "agentls: " + p.files[0].name
	}
	return fmt.Sprintf("agentls: %d files", len(p.files))
}

// send sends the proposal with workspace/applyEdit and turns the answer into
// one decision per file. An error reply counts as a rejection (Emacs eglot
// refuses that way). After applied, each open buffer must come to hold what
// was proposed (or what the user's partial decision left); a mismatch is
// logged and told to the model. Then, for a client that sends diagnostics,
// the decision carries what they show of the change (diagafter.go).
func (p *proposal) send(ctx context.Context) ([]agent.Decision, error) {
	we, err := p.edit()
	if err != nil {
		return same(len(p.files), agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}), nil
	}
	if p.annotated() {
		p.r.report(ctx, "Waiting for your confirmation", -1) // the client asks
	}
	label := p.label()
	var before diagSnapshot
	if p.watchesDiagnostics() {
		before = p.s.diags.snapshot() // the problems of the text the edit is made against
	}
	var raw jsonrpc2.RawMessage
	err = protocol.Call(ctx, p.s.conn, protocol.MethodWorkspaceApplyEdit, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: *we}, &raw)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err() // the request was cancelled with $/cancelRequest
		}
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			return same(len(p.files), agent.Decision{Outcome: agent.OutcomeRejected, Message: rpcErr.Message}), nil
		}
		return same(len(p.files), agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}), nil
	}
	var res contract.ApplyResult
	if err := json.Unmarshal(raw, &res); err != nil {
		return same(len(p.files), agent.Decision{Outcome: agent.OutcomeFailed, Message: "the editor's answer is not an ApplyWorkspaceEditResult: " + err.Error()}), nil
	}
	if !res.Applied {
		msg := ""
		if res.FailureReason != nil {
			msg = *res.FailureReason
		}
		return same(len(p.files), agent.Decision{Outcome: agent.OutcomeRejected, Message: msg}), nil
	}
	deadline := time.Now().Add(p.s.settleTimeout())
	ds := make([]agent.Decision, len(p.files))
	for i, f := range p.files {
		ds[i] = p.decide(ctx, f, p.clientFile(&res, f), deadline)
	}
	if p.watchesDiagnostics() {
		p.addDiagnostics(ctx, before, ds)
	}
	return ds, nil
}

// clientFile finds f in the agentls extension of the answer.
func (p *proposal) clientFile(res *contract.ApplyResult, f fileChange) *contract.ClientFile {
	if res.Agentls == nil {
		return nil
	}
	for i, cf := range res.Agentls.Files {
		path, err := workspace.PathFromURI(cf.URI)
		if err == nil && cf.Text != nil && (path == filepath.Clean(f.path) || path == filepath.Clean(p.r.spec.ws.ClientPath(f.path))) {
			return &res.Agentls.Files[i]
		}
	}
	return nil
}

// decide turns an applied answer into f's decision, checking the buffer the
// client reports against what was proposed. applied:true is the client's
// word: a buffer that has not caught up when the wait ends (Emacs eglot
// reports changes from an idle timer, often seconds later) is applied. It
// is not when the client's own reports show otherwise: a later version of
// the buffer without the change (a client whose confirmation of an
// annotated edit cannot say No), or a client known to drop stale edits
// silently whose buffer never changed.
func (p *proposal) decide(ctx context.Context, f fileChange, cf *contract.ClientFile, deadline time.Time) agent.Decision {
	if f.delete {
		// A deleted file has no buffer to check: the editor's word is
		// taken.
		return agent.Decision{Outcome: agent.OutcomeApplied}
	}
	want := f.new
	if cf != nil {
		want = *cf.Text
	}
	wait := max(0, time.Until(deadline))
	if !f.open && cf == nil {
		// A file the editor had not opened: it may apply the edit without
		// ever opening it, so the wait for its didOpen is short.
		wait = min(wait, closedSettle)
	}
	text, version, open, settled := p.s.settle(ctx, p.r.spec.ws, f.path, want, wait)
	if ctx.Err() != nil {
		return agent.Decision{Outcome: agent.OutcomeApplied}
	}
	final := want
	// A later version of a buffer that was open when the edit went out is
	// the client's report of it; a didOpen of a file it was not may come
	// before it edits it.
	moved := open && f.open && f.version != nil && version != *f.version
	switch {
	case settled:
	case !open:
		// The client applied it to a file it has not opened (or closed it
		// since): its word until it reports the file.
		p.s.log.Debug("applied edit not verified: the file is not open in the editor", "file", f.name)
		p.s.applied.set(f.path, want)
	case !moved && p.r.spec.caps.quirks.skipsStaleSilently:
		p.s.log.Warn("the editor answered applied, but the buffer did not change", "file", f.name)
		return agent.Decision{Outcome: agent.OutcomeFailed,
			Message: fmt.Sprintf("the editor answered that it applied the change, but %s did not change (this editor drops an edit it takes for an older version of the buffer); %s is as it was", f.name, f.name)}
	case !moved:
		// The editor has not reported its buffer since: take its word.
		p.s.log.Debug("the editor has not reported the edited buffer yet", "file", f.name)
		p.s.applied.set(f.path, want)
	case lacksChange(f.old, want, text):
		p.s.log.Warn("the editor answered applied, but its buffer does not have the change", "file", f.name, "annotated", p.annotated())
		if p.annotated() {
			return agent.Decision{Outcome: agent.OutcomeRejected, RejectedHunks: allHunks(f, p.r.spec.caps.encoding),
				Message: "declined in the editor (it answered applied, but its buffer does not have the change)"}
		}
		return agent.Decision{Outcome: agent.OutcomeFailed,
			Message: fmt.Sprintf("the editor answered that it applied the change, but its buffer of %s does not have it", f.name)}
	default:
		p.s.log.Warn("the buffer after the edit differs from what was proposed", "file", f.name)
		final = text
	}
	d := p.outcome(f, cf, final)
	if f.rebased && d.Outcome == agent.OutcomeApplied {
		// Applied onto the user's typing: the file before it was f.old.
		d.Rebased, d.Base = true, f.old
		if d.Final == "" {
			d.Final = final
		}
	}
	return d
}

// outcome is f's decision once its buffer holds final.
func (p *proposal) outcome(f fileChange, cf *contract.ClientFile, final string) agent.Decision {
	enc := p.r.spec.caps.encoding
	switch {
	case final == f.new && (cf == nil || len(cf.RejectedHunks)+len(cf.EditedHunks) == 0):
		d := agent.Decision{Outcome: agent.OutcomeApplied}
		if f.rebased {
			// The buffer holds the user's typing too: the model must not
			// assume the file is what it computed.
			d.Final = final
			d.Message = fmt.Sprintf("%s had changed since you read it; your change was applied on top of the user's edits. Read it again before changing it further", f.name)
		}
		return d
	case final == f.old:
		return agent.Decision{Outcome: agent.OutcomeRejected, Message: "the user rejected every part of the change", RejectedHunks: allHunks(f, enc)}
	}
	var rejected, edited []int
	if cf != nil {
		rejected, edited = cf.RejectedHunks, cf.EditedHunks
	}
	return agent.Decision{Outcome: agent.OutcomeApplied, Final: final, RejectedHunks: rejected,
		Message: partialMessage(f.name, f.old, f.new, final, enc, rejected, edited)}
}

// lacksChange reports whether text, a later version of the buffer old, does
// not hold the change old → want: it is old itself, or the change still
// merges into it cleanly (the user's typing is all it holds). When the
// change would clash with text, text already holds (some of) it.
func lacksChange(old, want, text string) bool {
	if text == old {
		return true
	}
	merged, ok := edits.Rebase(old, want, text)
	return ok && merged != text
}

func allHunks(f fileChange, enc lspedit.Encoding) []int {
	hs := hunksOf(fileTextEdits(f.old, f.new, enc))
	idx := make([]int, len(hs))
	for i := range idx {
		idx[i] = i
	}
	return idx
}
