package trace

import (
	"time"

	"github.com/agentls/agentls/agent"
)

// A Summary is what a trace tells about its run, for listings.
type Summary struct {
	RunID     string
	Started   time.Time
	Duration  time.Duration // to the last recorded event
	Workspace string
	Task      string
	Model     string
	// Stop is the stop reason; "" when the trace has no run_end (the run
	// did not finish).
	Stop   agent.StopReason
	Error  string
	Result string
	Turns  int
	// Usage is every model call's, subagents' included, with the cost the
	// run reported at its end (none when it did not end).
	Usage agent.Usage

	ModelCalls int
	// Calls say what went into each model call: "what did the model see
	// for this call?"
	Calls []CallSummary
	// Skills are the skills the run could activate, as "name (source)".
	Skills     []string
	Retries    int
	Tools      []ToolSummary
	Subagents  []SubagentSummary
	Routed     *agent.Routing
	Compressed []agent.Compression
	Proposals  map[agent.Outcome]int // by outcome ("" : undecided)
	Approvals  map[string]int        // "allowed", "denied", "unanswered"
	Policy     map[agent.Verdict]int
	Torn       bool
}

// A ToolSummary is one tool call of the run or its subagents.
type ToolSummary struct {
	RunID    string
	Agent    string
	Turn     int
	Name     string
	Display  string // the call's progress line ("Reading main.go")
	Duration time.Duration
	Done     bool // a result was recorded
	IsError  bool
	Result   string // the result's display line
	Verdict  agent.Verdict
	Rule     string
	Approved *bool         // nil: not asked, or unanswered
	Outcome  agent.Outcome // of its proposal, if it made one
}

// A CallSummary is one model call and what went into it.
type CallSummary struct {
	PromptID string
	Seq      int
	Model    string
	Context  CallContext
	Error    string
}

// A SubagentSummary is one subagent run.
type SubagentSummary struct {
	RunID, Agent, Task string
	End                *agent.RunEnd
}

// Summarize reads a trace's run out of its records.
func Summarize(t *Trace) Summary {
	h := t.Header
	s := Summary{RunID: h.RunID, Started: h.Started, Workspace: h.Workspace, Task: h.Task.Prompt, Model: h.Model,
		ModelCalls: len(t.Calls), Torn: t.Torn,
		Proposals: map[agent.Outcome]int{}, Approvals: map[string]int{}, Policy: map[agent.Verdict]int{}}
	for _, c := range t.Calls {
		if c.Usage != nil {
			s.Usage.Add(*c.Usage)
		}
		s.Retries += len(c.Retries)
		s.Calls = append(s.Calls, CallSummary{PromptID: c.PromptID, Seq: c.Seq, Model: c.Model, Context: c.Context, Error: c.Error})
	}
	for _, sk := range h.Skills {
		s.Skills = append(s.Skills, sk.Name+" ("+sk.Source+")")
	}
	index := map[callID]int{} // tool calls in s.Tools
	for _, p := range t.Policy {
		s.Policy[p.Verdict]++
	}
	verdicts := map[callID]PolicyCheck{}
	for _, p := range t.Policy {
		verdicts[callID{p.RunID, p.CallID}] = p
	}
	var last time.Time
	for _, ev := range t.Events {
		if ev.Time.After(last) {
			last = ev.Time
		}
		var id callID
		if ev.Call != nil {
			id = callID{ev.RunID, ev.Call.ID}
		}
		switch ev.Type {
		case agent.EventToolCall:
			ts := ToolSummary{RunID: ev.RunID, Agent: ev.Agent, Turn: ev.Turn, Name: ev.Call.Name, Display: ev.Call.Display}
			if p, ok := verdicts[id]; ok {
				ts.Verdict, ts.Rule = p.Verdict, p.Rule
			}
			index[id] = len(s.Tools)
			s.Tools = append(s.Tools, ts)
		case agent.EventToolResult:
			if i, ok := index[id]; ok && ev.Result != nil {
				ts := &s.Tools[i]
				ts.Done, ts.IsError, ts.Duration, ts.Result = true, ev.Result.IsError, ev.Result.Duration, ev.Result.Display
			}
		case agent.EventApprovalDecided:
			if i, ok := index[id]; ok && ev.Approval != nil {
				s.Tools[i].Approved = ev.Approval.Allowed
			}
			switch {
			case ev.Approval == nil || ev.Approval.Allowed == nil:
			case *ev.Approval.Allowed:
				s.Approvals["allowed"]++
			default:
				s.Approvals["denied"]++
			}
		case agent.EventApprovalRequested:
			s.Approvals["asked"]++
		case agent.EventEditDecided:
			if i, ok := index[id]; ok && ev.Edit != nil {
				s.Tools[i].Outcome = ev.Edit.Outcome
			}
			if ev.Edit != nil {
				s.Proposals[ev.Edit.Outcome]++
			}
		case agent.EventSubagentStart:
			if ev.Subagent != nil {
				s.Subagents = append(s.Subagents, SubagentSummary{RunID: ev.Subagent.RunID, Agent: ev.Subagent.Agent, Task: ev.Subagent.Task})
			}
		case agent.EventSubagentEnd:
			for i := range s.Subagents {
				if ev.Subagent != nil && s.Subagents[i].RunID == ev.Subagent.RunID {
					s.Subagents[i].End = ev.Subagent.End
				}
			}
		case agent.EventModelRouted:
			s.Routed = ev.Routed
		case agent.EventCompressed:
			if ev.Compressed != nil {
				s.Compressed = append(s.Compressed, *ev.Compressed)
			}
		}
	}
	if !last.IsZero() && !h.Started.IsZero() {
		s.Duration = last.Sub(h.Started)
	}
	if end := t.End(); end != nil && end.End != nil {
		s.Stop, s.Error, s.Result, s.Turns = end.End.Reason, end.End.Error, end.End.Result, end.End.Turns
		if end.Usage != nil {
			s.Usage = *end.Usage // the run's own count: priced, subagents' included
		}
	}
	return s
}
