package lsp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// revertCommand undoes the changes of a run that the user accepted: one
// proposal, confirmed like any other, rebased onto the buffers as they are
// now. It answers once the user has decided. What cannot be undone cleanly
// is left as it is and reported.
func (s *Server) revertCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	var args contract.RevertArgs
	if err := commandArg(params, &args); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.RunID) == "" {
		return nil, fmt.Errorf("%w: %s needs a \"runId\"", errInvalidParams, contract.CommandRevert)
	}
	if s.runs.running(args.RunID) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("agentls: run %s is still running; revert it once it has ended", args.RunID))
	}
	ws := s.workspace()
	info, err := s.host.Sessions.FindRun(ws.Roots(), args.RunID)
	if err != nil {
		return nil, sessionError(contract.CommandRevert, err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	h := &runHandle{id: "revert-" + newID(), cancel: cancel}
	w, err := s.host.Sessions.Lock(info.Root, info.ID, h.id)
	if err != nil {
		return nil, sessionError(contract.CommandRevert, err)
	}
	defer w.Close()
	changes, err := w.Revertable(args.RunID)
	if err != nil {
		return nil, sessionError(contract.CommandRevert, err)
	}
	s.mu.Lock()
	settings := s.settings
	spec := runSpec{h: h, caps: s.caps, ws: ws, root: info.Root, token: params.WorkDoneToken,
		args: contract.RunArgs{Title: "revert " + args.RunID}}
	s.mu.Unlock()
	// A revert is always confirmed, whatever the approval mode, and is
	// one proposal.
	settings.ApprovalMode, settings.Confirm = "default", "each"
	spec.settings = settings
	r := s.newLiveRun(spec)
	res := contract.RevertResult{RunID: args.RunID, SessionID: info.ID}
	done := make(chan struct{})
	started := s.runs.start(h, func() {
		defer close(done)
		r.begin(runCtx)
		res = r.revert(runCtx, args.RunID, changes)
		res.SessionID = info.ID
		if anyDone(res.Files) {
			if err := w.Reverted(session.Revert{Run: args.RunID, Files: res.Files}); err != nil {
				s.log.Error("revert not recorded in its session", "run", args.RunID, "err", err)
			}
		}
		if !settings.Events {
			s.showMessage(runCtx, res.Outcome == agent.OutcomeApplied, "agentls: "+res.Summary)
		}
		r.prog.end(runCtx, res.Summary)
	})
	if !started {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls is shutting down")
	}
	<-done
	if res.Files == nil {
		res.Files = []session.RevertedFile{}
	}
	return encodeResult(res)
}

// A revertFile is one file of a revert: the run's changes to it, and
// what undoing them on the buffer gives.
type revertFile struct {
	path, name string
	changes    []session.Change // in the order the run made them
	cur        string           // the file now
	exists     bool
	target     string // the file with the run's changes undone
	remove     bool   // the run created it and nothing of the user's is left
	skipped    []edits.LineSpan
}

// planRevert undoes each file's changes on its text now, the last change
// first: a change is undone by rebasing its inverse (after → before) onto
// the text, so the user's typing since is kept, and the parts the user
// changed since are left as the user left them (skipped).
func planRevert(ws *workspace.Workspace, changes []session.Change) ([]*revertFile, error) {
	var files []*revertFile
	byPath := map[string]*revertFile{}
	for _, c := range changes {
		f := byPath[c.Path]
		if f == nil {
			f = &revertFile{path: c.Path, name: c.Name}
			byPath[c.Path] = f
			files = append(files, f)
		}
		f.changes = append(f.changes, c)
	}
	for _, f := range files {
		cur, err := ws.ReadFile(f.path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, err
		default:
			f.cur, f.exists = cur.Text, true
		}
		text := f.cur
		for i := len(f.changes) - 1; i >= 0; i-- {
			c := f.changes[i]
			var skipped []edits.LineSpan
			text, skipped = edits.RebaseSome(c.After, c.Before, text)
			f.skipped = append(f.skipped, skipped...)
		}
		f.target = text
		f.remove = f.changes[0].Create && text == "" && len(f.skipped) == 0
	}
	return files, nil
}

// revert proposes the revert of runID's changes and reports what became
// of each file.
func (r *liveRun) revert(ctx context.Context, runID string, changes []session.Change) contract.RevertResult {
	res := contract.RevertResult{RunID: runID}
	files, err := planRevert(r.spec.ws, changes)
	if err != nil {
		res.Outcome, res.Summary = agent.OutcomeFailed, "Nothing was reverted: "+err.Error()
		return res
	}
	canDelete := r.spec.caps.canDelete()
	var proposed []*revertFile
	var cs []change
	outcomes := map[*revertFile]session.RevertedFile{}
	for _, f := range files {
		rf := session.RevertedFile{Name: f.name}
		switch {
		case !f.exists && f.changes[0].Create:
			rf.Outcome, rf.Message = session.Deleted, "already deleted"
		case !f.exists:
			rf.Outcome, rf.Message = session.Conflict, "deleted since the run"
		case f.target == f.cur && !f.remove && len(f.skipped) > 0:
			rf.Outcome, rf.Message = session.Conflict, "you have changed every line the run changed: "+spans(f.skipped)+" left as you changed "+them(f.skipped)
		case f.target == f.cur && !f.remove:
			rf.Outcome, rf.Message = session.Reverted, "already as it was before the run"
		default:
			c := change{path: f.path, name: f.name, base: f.cur, mine: f.target, reason: "undo run " + runID}
			if f.remove && canDelete {
				c.delete, c.mine = true, ""
			}
			cs = append(cs, c)
			proposed = append(proposed, f)
			outcomes[f] = rf
			continue
		}
		outcomes[f] = rf
	}
	if len(cs) == 0 {
		res.Files = ordered(files, outcomes)
		res.Outcome = agent.OutcomeConflict
		res.Summary = fmt.Sprintf("Nothing to revert of run %s: %s.", runID, fileOutcomes(res.Files))
		if allDone(res.Files) {
			res.Outcome = agent.OutcomeApplied
			res.Summary = fmt.Sprintf("The files of run %s are already as they were before it.", runID)
		}
		return res
	}
	ds, err := r.s.propose(ctx, r, cs)
	if err != nil {
		res.Files = ordered(files, outcomes)
		res.Outcome, res.Summary = agent.OutcomeWithdrawn, "The revert was withdrawn."
		return res
	}
	for i, f := range proposed {
		rf := outcomes[f]
		d := ds[i]
		switch d.Outcome {
		case agent.OutcomeApplied:
			rf.Outcome = session.Reverted
			switch {
			case cs[i].delete:
				rf.Outcome = session.Deleted
			case f.remove:
				rf.Outcome, rf.Message = session.Emptied, "the editor cannot delete files, so it is emptied: delete it yourself"
			case len(f.skipped) > 0:
				rf.Message = "in part: " + spans(f.skipped) + " left as you changed " + them(f.skipped)
			}
			if len(d.RejectedHunks) > 0 {
				rf.Message = strings.TrimPrefix(rf.Message+"; in part: you kept part of the run's change", "; ")
			}
		case agent.OutcomeRejected:
			rf.Outcome, rf.Message = session.Declined, d.Message
		case agent.OutcomeConflict:
			rf.Outcome, rf.Message = session.Conflict, d.Message
		default:
			rf.Outcome, rf.Message = session.Failed, d.Message
		}
		outcomes[f] = rf
	}
	res.Files = ordered(files, outcomes)
	res.Outcome, _ = overall(ds)
	res.Summary = revertSummary(runID, res)
	return res
}

func ordered(files []*revertFile, outcomes map[*revertFile]session.RevertedFile) []session.RevertedFile {
	out := make([]session.RevertedFile, len(files))
	for i, f := range files {
		out[i] = outcomes[f]
	}
	return out
}

func anyDone(files []session.RevertedFile) bool {
	for _, f := range files {
		if f.Done() {
			return true
		}
	}
	return false
}

func allDone(files []session.RevertedFile) bool {
	for _, f := range files {
		if !f.Done() {
			return false
		}
	}
	return true
}

// revertSummary is the revert's line for the user.
func revertSummary(runID string, res contract.RevertResult) string {
	switch res.Outcome {
	case agent.OutcomeRejected:
		return fmt.Sprintf("The revert of run %s was declined; nothing changed.", runID)
	case agent.OutcomeConflict:
		return fmt.Sprintf("Nothing was reverted: %s.", fileOutcomes(res.Files))
	}
	if allDone(res.Files) && !anyPartial(res.Files) {
		return fmt.Sprintf("Reverted run %s: %s.", runID, fileOutcomes(res.Files))
	}
	return fmt.Sprintf("Reverted run %s in part: %s.", runID, fileOutcomes(res.Files))
}

// anyPartial reports whether some file was reverted only in part.
func anyPartial(files []session.RevertedFile) bool {
	for _, f := range files {
		if strings.HasPrefix(f.Message, "in part") || strings.Contains(f.Message, "you kept part") {
			return true
		}
	}
	return false
}

func them(ss []edits.LineSpan) string {
	if len(ss) == 1 && ss[0].End-ss[0].Start <= 1 {
		return "it"
	}
	return "them"
}

// fileOutcomes lists the files and what became of them.
func fileOutcomes(files []session.RevertedFile) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = f.Name + " " + f.Outcome
		if f.Message != "" {
			parts[i] += " (" + f.Message + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// spans names lines: "line 3", "lines 5-7", "line 3 and lines 5-7".
func spans(ss []edits.LineSpan) string {
	parts := make([]string, len(ss))
	for i, sp := range ss {
		switch {
		case sp.End-sp.Start <= 1:
			parts[i] = fmt.Sprintf("line %d", sp.Start)
		default:
			parts[i] = fmt.Sprintf("lines %d-%d", sp.Start, sp.End-1)
		}
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}
