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
	// A run that is still going holds its session: Lock below says so.
	ws := s.workspace()
	info, err := s.host.Sessions.FindRun(ws.Roots(), args.RunID)
	if err != nil {
		if s.runs.running(args.RunID) { // started, and not yet in its session
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("agentls: session busy: %s is running in it; wait for it to end, or cancel it", args.RunID))
		}
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

// revert proposes the revert of runID's changes and reports what became
// of each file.
func (r *liveRun) revert(ctx context.Context, runID string, changes []session.Change) contract.RevertResult {
	res := contract.RevertResult{RunID: runID}
	ws := r.spec.ws
	files, err := session.PlanRevert(r.spec.root, changes, func(path string) (string, bool, error) {
		f, err := ws.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return "", false, nil
		}
		return f.Text, err == nil, err
	})
	if err != nil {
		res.Outcome, res.Summary = agent.OutcomeFailed, "Nothing was reverted: "+err.Error()
		return res
	}
	canDelete := r.spec.caps.canDelete()
	res.Files = make([]session.RevertedFile, len(files))
	var proposed []int // indexes in files of the proposed changes
	var cs []change
	for i, f := range files {
		if rf, ok := f.Settled(); ok {
			res.Files[i] = rf
			continue
		}
		c := change{path: f.Path, name: f.Name, base: f.Current, mine: f.Target, reason: "undo run " + runID}
		if f.Remove && canDelete {
			c.delete, c.mine = true, ""
		}
		cs = append(cs, c)
		proposed = append(proposed, i)
	}
	if len(cs) == 0 {
		res.Outcome, res.Summary = agent.OutcomeConflict, session.Summary(runID, res.Files)
		if allDone(res.Files) {
			res.Outcome = agent.OutcomeApplied
			res.Summary = fmt.Sprintf("The files of run %s are already as they were before it.", runID)
		}
		return res
	}
	ds, err := r.s.propose(ctx, r, cs)
	if err != nil {
		for j, i := range proposed {
			res.Files[i] = session.RevertedFile{Name: cs[j].name, Outcome: session.Declined, Message: "withdrawn: " + err.Error()}
		}
		res.Outcome, res.Summary = agent.OutcomeWithdrawn, "The revert was withdrawn."
		return res
	}
	for j, i := range proposed {
		d := ds[j]
		rf := session.RevertedFile{Name: files[i].Name, Message: d.Message}
		switch d.Outcome {
		case agent.OutcomeApplied:
			rf = files[i].Applied(cs[j].delete, len(d.RejectedHunks) > 0)
		case agent.OutcomeRejected:
			rf.Outcome = session.Declined
		case agent.OutcomeConflict:
			rf.Outcome = session.Conflict
		default:
			rf.Outcome = session.Failed
		}
		res.Files[i] = rf
	}
	res.Outcome, _ = overall(ds)
	if res.Outcome == agent.OutcomeRejected {
		res.Summary = fmt.Sprintf("The revert of run %s was declined; nothing changed.", runID)
	} else {
		res.Summary = session.Summary(runID, res.Files)
	}
	return res
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
