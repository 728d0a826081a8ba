package trace

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// ErrDiverged reports that a replay asked something the recording did not.
var ErrDiverged = errors.New("replay diverged from the recording")

// A Divergence is the first point where a replay differs from its
// recording, with both sides.
type Divergence struct {
	Where    string // "model call main-1a2b#3", "run_shell_command call …", "proposal for main.go"
	Recorded string
	Now      string
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("%v at %s: the recording has %s; this run has %s", ErrDiverged, d.Where, d.Recorded, d.Now)
}

func (d *Divergence) Unwrap() error { return ErrDiverged }

// A Replay runs the harness again from a trace: it is the Model that gives
// each call its recorded answer, with no network. Its Tools, Proposer,
// Approver and Policy give the rest of the run's answers from the trace.
// It is safe for concurrent use.
type Replay struct {
	t *Trace

	mu        sync.Mutex
	calls     map[string][]*ModelCall // by prompt id, in order
	next      map[string]int
	policy    map[string][]PolicyCheck // by agent, tool and arguments
	tools     map[callID]*toolRecord
	proposals map[string][]*decided // by file name
	approvals map[string][]*decided // by tool and command
	first     *Divergence
	abort     func()
}

// A toolRecord is a recorded tool call and its result.
type toolRecord struct {
	call   *agent.ToolCall
	result *agent.ToolResult // nil: the trace ends before the result
}

// decided is a recorded proposal or approval, and its answer (nil: none
// was recorded, the run stopped while it waited).
type decided struct {
	asked, answer *agent.Event
}

// NewReplay prepares a replay of t.
func NewReplay(t *Trace) *Replay {
	rp := &Replay{t: t, calls: map[string][]*ModelCall{}, next: map[string]int{}, policy: map[string][]PolicyCheck{},
		tools: map[callID]*toolRecord{}, proposals: map[string][]*decided{}, approvals: map[string][]*decided{}}
	for i := range t.Calls {
		c := &t.Calls[i]
		rp.calls[c.PromptID] = append(rp.calls[c.PromptID], c)
	}
	for _, p := range t.Policy {
		key := checkKey(p.Agent, p.Tool, p.Args)
		rp.policy[key] = append(rp.policy[key], p)
	}
	open := map[callID]*decided{} // proposals and approvals awaiting their answer
	for i := range t.Events {
		ev := &t.Events[i]
		var id callID
		switch {
		case ev.Call != nil:
			id = callID{ev.RunID, ev.Call.ID}
		case ev.Approval != nil && ev.Approval.Kind == agent.ApprovalLoop:
			// The loop question belongs to no call; a run asks one at a time.
			id = callID{ev.RunID, agent.ApprovalLoop}
		default:
			continue
		}
		switch ev.Type {
		case agent.EventToolCall:
			rp.tools[id] = &toolRecord{call: ev.Call}
		case agent.EventToolResult:
			if r := rp.tools[id]; r != nil {
				r.result = ev.Result
			}
		case agent.EventEditProposed:
			d := &decided{asked: ev}
			rp.proposals[ev.Edit.Name] = append(rp.proposals[ev.Edit.Name], d)
			open[id] = d
		case agent.EventApprovalRequested:
			d := &decided{asked: ev}
			key := approvalKey(*ev.Approval)
			rp.approvals[key] = append(rp.approvals[key], d)
			open[id] = d
		case agent.EventEditDecided, agent.EventApprovalDecided:
			if d := open[id]; d != nil {
				d.answer = ev
				delete(open, id)
			}
		}
	}
	return rp
}

// Trace returns the trace being replayed.
func (rp *Replay) Trace() *Trace { return rp.t }

// Diverged returns the first divergence, or nil.
func (rp *Replay) Diverged() *Divergence {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	return rp.first
}

// SetAbort gives the replay the run's cancel function: where the recorded
// run was stopped by its user (a proposal or approval left unanswered), the
// replay stops the same way.
func (rp *Replay) SetAbort(cancel func()) {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	rp.abort = cancel
}

// diverge notes d, if it is the first, and returns it as an error.
func (rp *Replay) diverge(d *Divergence) error {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	if rp.first == nil {
		rp.first = d
	}
	return d
}

// stopped stops the replayed run where the recording was stopped.
func (rp *Replay) stopped(ctx context.Context, where string) error {
	rp.mu.Lock()
	abort := rp.abort
	rp.mu.Unlock()
	if abort == nil {
		return fmt.Errorf("the recorded run stopped at %s", where)
	}
	abort()
	<-ctx.Done()
	return context.Cause(ctx)
}

// Config returns the recorded run's configuration with the replay as its
// model, policy and approver. The caller adds the tools (see
// [Replay.Tools]) and whatever else its run needs.
func (rp *Replay) Config() agent.Config {
	h := rp.t.Header
	return agent.Config{Model: rp, Agent: h.Agent.Definition(), Policy: rp.Policy(), Approver: rp.Approver(),
		RunID: h.RunID, ContextWindow: h.ContextWindow, CompressAt: h.CompressAt, History: h.History}
}

// Task returns the recorded task.
func (rp *Replay) Task() agent.Task {
	h := rp.t.Header.Task
	task := agent.Task{Prompt: h.Prompt, File: h.File, Diagnostics: h.Diagnostics, Notes: h.Notes}
	if s := h.Selection; s != nil {
		task.Selection = &agent.Selection{StartLine: s.StartLine, EndLine: s.EndLine, Text: s.Text}
	}
	return task
}

// Generate implements agent.Model: it answers with the next recorded call
// of the request's prompt id, after checking the request answers what the
// recorded one did.
func (rp *Replay) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		rp.mu.Lock()
		list, i := rp.calls[req.PromptID], rp.next[req.PromptID]
		rp.next[req.PromptID]++
		rp.mu.Unlock()
		asked := Asked(req)
		where := fmt.Sprintf("model call %s (call %d of the turn)", req.PromptID, i+1)
		if i >= len(list) {
			recorded := "no such call"
			if i == 0 && !rp.anyAfter(req.PromptID) {
				recorded = "no such call: the recording ends before it"
			}
			yield(nil, rp.diverge(&Divergence{Where: where, Recorded: recorded, Now: "a call answering " + askedText(asked)}))
			return
		}
		rec := list[i]
		if !slices.Equal(asked, rec.Asked) {
			yield(nil, rp.diverge(&Divergence{Where: where, Recorded: "a call answering " + askedText(rec.Asked), Now: "a call answering " + askedText(asked)}))
			return
		}
		for _, r := range rec.Retries {
			if req.Events != nil {
				req.Events(agent.Event{Type: agent.EventRetry, Retry: &r})
			}
		}
		for _, c := range rec.Chunks {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
		if rec.Error != "" {
			yield(nil, errors.New(rec.Error))
		}
	}
}

// anyAfter reports whether the recording has calls of prompt ids other than
// those the replay has reached; it tells a recording that simply ends (a
// crash, a stop) from one that went another way.
func (rp *Replay) anyAfter(promptID string) bool {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	for id, list := range rp.calls {
		if id != promptID && rp.next[id] < len(list) {
			return true
		}
	}
	return false
}

func askedText(asked []string) string {
	if len(asked) == 0 {
		return "nothing"
	}
	return "[" + strings.Join(asked, ", ") + "]"
}
