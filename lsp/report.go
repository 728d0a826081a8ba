package lsp

import (
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"

	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// A liveRun is a run the server is driving: its progress, its event
// numbering, its subagents' progress and, with confirm: run, its staged
// changes.
type liveRun struct {
	s           *Server
	spec        runSpec
	prog        *progress
	stage       *stage                   // confirm: run; nil otherwise
	proposal    *contract.ProposalReport // the stage's last proposal
	refusals    int                      // proposals of the stage the user turned down
	maxTurns    int
	seq         atomic.Int64 // agentls/event numbering
	annotations atomic.Int64 // change annotations sent, to number their ids
	turn        atomic.Int64 // the turn of the last event
	diffs       atomic.Int64 // diffs shown, to name their files
	proposed    atomic.Bool  // a change was proposed: the result is not a text answer
	runEnd      agent.Event  // the harness's run_end, forwarded once the run is finished
	run         *runner.Run  // the built run, once it is driven

	subs map[string]*subagentRun // by subagent run id; the drive goroutine's only
}

// A subagentRun is a subagent's own progress, on a child token whose cancel
// stops only that subagent.
type subagentRun struct {
	h    *runHandle
	prog *progress
}

func (s *Server) newLiveRun(spec runSpec) *liveRun {
	r := &liveRun{s: s, spec: spec, subs: make(map[string]*subagentRun)}
	if spec.settings.Confirm == "run" && r.canPropose() {
		r.stage = newStage(spec.ws)
	}
	return r
}

// begin begins the run's progress.
func (r *liveRun) begin(ctx context.Context) {
	r.prog = r.s.beginProgress(ctx, r.spec.token, "agentls/"+r.spec.h.id, "agentls: "+r.title(),
		func(key string) { r.s.runs.setToken(r.spec.h, key) })
}

// title is the run's short name.
func (r *liveRun) title() string {
	if t := strings.TrimSpace(r.spec.args.Title); t != "" {
		return shorten(t, 60)
	}
	return shorten(r.spec.task.Prompt, 50)
}

// canPropose reports whether the run may change files at all.
func (r *liveRun) canPropose() bool {
	return r.spec.caps.applyEdit && r.spec.settings.ApprovalMode != "plan" && r.spec.args.Action != contract.ActionExplain
}

// fs is the run's view of the files: the overlay, under its staged changes
// with confirm: run.
func (r *liveRun) fs() agent.FS {
	base := &runFS{Folder: r.spec.ws.Folder(r.spec.root), applied: &r.s.applied}
	if r.stage != nil {
		return &stagedFS{runFS: base, st: r.stage}
	}
	return base
}

// proposer is where the run's changes go, nil for a read-only run.
func (r *liveRun) proposer() agent.Proposer {
	switch {
	case !r.canPropose():
		return nil
	case r.stage != nil:
		return r.stage
	}
	return &proposer{s: r.s, r: r, ws: r.spec.ws, caps: r.spec.caps, auto: r.spec.settings.ApprovalMode == "autoEdit"}
}

// event handles one event of the run's stream (all but run_end).
func (r *liveRun) event(ctx context.Context, ev agent.Event) {
	r.turn.Store(int64(ev.Turn))
	switch ev.Type {
	case agent.EventEditProposed:
		r.proposed.Store(true)
	case agent.EventEditDecided:
		if r.stage != nil && ev.Edit != nil && ev.Edit.Outcome == agent.OutcomeStaged {
			e := *ev.Edit
			e.Outcome = contract.OutcomeStaged
			ev.Edit = &e
		}
	case agent.EventSubagentStart, agent.EventSubagentActivity, agent.EventSubagentEnd:
		r.subagent(ctx, ev)
	case agent.EventWarning:
		r.s.log.Warn(ev.Text, "run", ev.RunID)
	}
	if r.spec.settings.Events {
		r.notify(ctx, ev, nil)
	}
	if msg := reportMessage(ev, r.stage != nil); msg != "" {
		r.report(ctx, msg, ev.Turn)
	}
}

// report shows msg on the run's progress; turn < 0 means the turn of the
// last event.
func (r *liveRun) report(ctx context.Context, msg string, turn int) {
	if turn < 0 {
		turn = int(r.turn.Load())
	}
	pct := uint32(min(100, turn*100/max(1, r.maxTurns)))
	r.prog.report(ctx, msg, &pct)
}

// subagent keeps a subagent's child progress: begun on subagent_start,
// reported on its activity, ended on subagent_end.
func (r *liveRun) subagent(ctx context.Context, ev agent.Event) {
	info := ev.Subagent
	if info == nil {
		return
	}
	switch ev.Type {
	case agent.EventSubagentStart:
		cancel := info.Cancel
		if cancel == nil {
			cancel = func() {}
		}
		h := &runHandle{id: info.RunID, cancel: cancel}
		r.s.runs.add(h)
		title := "agentls: " + info.Agent + ": " + shorten(info.Task, 40)
		p := r.s.beginProgress(ctx, nil, "agentls/"+r.spec.h.id+"/"+info.RunID, title, func(key string) { r.s.runs.setToken(h, key) })
		r.subs[info.RunID] = &subagentRun{h: h, prog: p}
	case agent.EventSubagentActivity:
		if sub := r.subs[info.RunID]; sub != nil && ev.Inner != nil {
			if msg := reportMessage(*ev.Inner, false); msg != "" {
				sub.prog.report(ctx, msg, nil)
			}
		}
	case agent.EventSubagentEnd:
		if sub := r.subs[info.RunID]; sub != nil {
			end := info.End
			if end == nil {
				end = &agent.RunEnd{Reason: agent.StopError}
			}
			sub.prog.end(ctx, endMessage(end))
			r.s.runs.remove(sub.h)
			delete(r.subs, info.RunID)
		}
	}
}

// endSubagents ends the progress of subagents that did not report their end.
func (r *liveRun) endSubagents(ctx context.Context) {
	for id, sub := range r.subs {
		sub.prog.end(ctx, "stopped")
		r.s.runs.remove(sub.h)
		delete(r.subs, id)
	}
}

// reportMessage is the progress line for an event, or "".
func reportMessage(ev agent.Event, staged bool) string {
	switch ev.Type {
	case agent.EventThought:
		return ev.Subject
	case agent.EventToolCall:
		if ev.Call.Name == agent.CompleteTaskName {
			return "Finishing"
		}
		if ev.Call.Display != "" {
			return ev.Call.Display
		}
		return "Calling " + ev.Call.Name
	case agent.EventEditProposed:
		verb := "Proposing change to"
		if staged {
			verb = "Staging change to"
		}
		return fmt.Sprintf("%s %s (%s)", verb, ev.Edit.Name, edits.Stat{Added: ev.Edit.Added, Deleted: ev.Edit.Deleted})
	case agent.EventEditDecided:
		return fmt.Sprintf("Change to %s %s", ev.Edit.Name, ev.Edit.Outcome)
	case agent.EventApprovalRequested:
		return "Waiting for your approval"
	case agent.EventWarning:
		return "⚠ " + shorten(ev.Text, 300)
	case agent.EventRetry:
		if ev.Retry != nil {
			return ev.Retry.Summary() // "model overloaded, retrying in 12 s"
		}
	case agent.EventSubagentActivity:
		if ev.Inner == nil || ev.Subagent == nil {
			return ""
		}
		if msg := reportMessage(*ev.Inner, false); msg != "" && ev.Inner.Type != agent.EventRunEnd {
			return ev.Subagent.Agent + " › " + msg
		}
	}
	return ""
}

// endMessage is the progress end message: the result, or why the run stopped.
func endMessage(end *agent.RunEnd) string {
	if end.Reason == agent.StopGoal {
		return end.Result
	}
	msg := "stopped (" + string(end.Reason) + ")"
	if end.Error != "" {
		msg += ": " + end.Error
	}
	if end.Reason == agent.StopBudget && end.Result != "" {
		// The last turn's answer, given when the budget ran out.
		msg = end.Result + "\n" + msg
	}
	return msg
}

// finish ends the run: the staged proposal (confirm: run), run_end, the
// answer, and the progress end, always last.
func (r *liveRun) finish(ctx context.Context, end *agent.RunEnd) {
	var prop *contract.ProposalReport
	if r.stage != nil {
		prop = r.proposal
		if d := r.stage.discarded(); d != nil && end.Reason != agent.StopGoal {
			prop = d // what the run staged since was not proposed
		}
	}
	r.endSubagents(ctx)
	if r.spec.settings.Events {
		ev := r.runEnd
		if ev.Type == "" {
			ev = agent.Event{Type: agent.EventRunEnd, RunID: r.spec.h.id, Agent: "main", Time: r.s.now()}
		}
		ev.End = end
		r.notify(ctx, ev, prop)
	}
	msg := endMessage(end)
	if prop != nil {
		msg = strings.TrimSpace(msg + "\n" + prop.Summary)
	}
	progressEnd := firstLines(msg, answerLines, answerChars)
	if u := r.runEnd.Usage; u != nil {
		progressEnd += "\n" + usageLine(*u)
	}
	r.s.log.Info("run ended", "run", r.spec.h.id, "reason", end.Reason, "turns", end.Turns)
	switch {
	case end.Reason == agent.StopGoal && !r.proposed.Load() && strings.TrimSpace(end.Result) != "":
		r.answer(ctx, end.Result)
	case !r.spec.settings.Events:
		r.s.showMessage(ctx, end.Reason == agent.StopGoal, "agentls: "+shorten(msg, 400))
	}
	r.prog.end(ctx, progressEnd)
}
