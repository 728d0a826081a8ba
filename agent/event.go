package agent

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// EventType names an [Event] kind. The names are part of agentls's public
// contract (the agentls/event notification).
type EventType string

// Event types.
const (
	EventRunStart          EventType = "run_start"
	EventTurnStart         EventType = "turn_start"
	EventThought           EventType = "thought"
	EventText              EventType = "text"
	EventToolCall          EventType = "tool_call"
	EventApprovalRequested EventType = "approval_requested"
	EventApprovalDecided   EventType = "approval_decided"
	EventEditProposed      EventType = "edit_proposed"
	EventEditDecided       EventType = "edit_decided"
	EventToolResult        EventType = "tool_result"
	EventSubagentStart     EventType = "subagent_start"
	EventSubagentActivity  EventType = "subagent_activity"
	EventSubagentEnd       EventType = "subagent_end"
	EventCompressed        EventType = "compressed"
	EventModelRouted       EventType = "model_routed"
	EventUsage             EventType = "usage"
	EventRetry             EventType = "retry"
	EventWarning           EventType = "warning" // a problem the run goes on with (Text says what)
	EventTurnEnd           EventType = "turn_end"
	EventRunEnd            EventType = "run_end"
)

// StopReason tells why a run ended.
type StopReason string

// Stop reasons.
const (
	StopGoal           StopReason = "goal"             // complete_task was called and accepted
	StopTimeout        StopReason = "timeout"          // the run's time limit passed
	StopMaxTurns       StopReason = "max_turns"        // the run's turn limit was reached
	StopAborted        StopReason = "aborted"          // the caller cancelled the run
	StopError          StopReason = "error"            // the model or a tool failed in a way the run cannot survive
	StopNoCompleteTask StopReason = "no_complete_task" // the model stopped calling tools without complete_task
	StopLoop           StopReason = "loop"             // the model kept repeating itself after a warning
	StopBudget         StopReason = "budget"           // the run spent its budget (Config.MaxBudget)
)

// An Event is one step of a run, as the run's stream yields it. Only the
// fields that belong to its Type are set.
type Event struct {
	Type        EventType `json:"type"`
	RunID       string    `json:"runId"`
	ParentRunID string    `json:"parentRunId,omitempty"`
	Agent       string    `json:"agent,omitempty"`
	PromptID    string    `json:"promptId,omitempty"`
	Turn        int       `json:"turn,omitempty"`
	Time        time.Time `json:"time"`

	// Text is the chunk of a thought or text event, the task of run_start,
	// the problem of a warning.
	Text string `json:"text,omitempty"`
	// Subject is a thought's subject, the bold first line Gemini opens
	// thoughts with; it carries over to the chunks that follow it.
	Subject string `json:"subject,omitempty"`

	Call     *ToolCall   `json:"call,omitempty"`     // tool_call, tool_result, approval_*, edit_*
	Result   *ToolResult `json:"result,omitempty"`   // tool_result
	Edit     *EditInfo   `json:"edit,omitempty"`     // edit_proposed, edit_decided
	Approval *Approval   `json:"approval,omitempty"` // approval_requested, approval_decided
	Usage    *Usage      `json:"usage,omitempty"`    // usage (one model call), run_end (totals)
	End      *RunEnd     `json:"end,omitempty"`      // run_end

	Retry      *RetryInfo    `json:"retry,omitempty"`      // retry
	Compressed *Compression  `json:"compressed,omitempty"` // compressed
	Routed     *Routing      `json:"routed,omitempty"`     // model_routed
	Todos      []Todo        `json:"todos,omitempty"`      // a plan (write_todos), on tool_result
	Subagent   *SubagentInfo `json:"subagent,omitempty"`   // subagent_start, subagent_activity, subagent_end

	// Inner is the subagent's own event, for subagent_activity.
	Inner *Event `json:"inner,omitempty"`
}

// RetryInfo describes a model call that failed, or answered nothing, and
// is tried again.
type RetryInfo struct {
	Attempt int           `json:"attempt"` // the attempt that failed, from 1
	Delay   time.Duration `json:"delayNs"` // the wait before the next attempt
	// Reason says in a few words why ("model overloaded", "rate limit
	// reached", "empty answer", "answer cut off"…), for progress.
	Reason string `json:"reason,omitempty"`
	// Error is what went wrong, as a sentence.
	Error string `json:"error"`
	// Discard says the call had already streamed part of its answer: that
	// part is void, and a display should drop it. The history never holds
	// it.
	Discard bool `json:"discard,omitempty"`
}

// Summary is a progress line for the retry: "model overloaded, retrying
// in 12 s".
func (ri RetryInfo) Summary() string {
	reason := ri.Reason
	if reason == "" {
		reason = "model call failed"
	}
	secs := int(math.Ceil(ri.Delay.Seconds()))
	if secs <= 0 {
		return reason + ", retrying"
	}
	return fmt.Sprintf("%s, retrying in %d s", reason, secs)
}

// Compression describes history compression: estimated prompt tokens before
// and after.
type Compression struct {
	Before int    `json:"before"`
	After  int    `json:"after"`
	Method string `json:"method"` // "mask", "summary" or "trim"
}

// Routing is the model a run's router picked, and why.
type Routing struct {
	Model  string `json:"model"`
	Reason string `json:"reason"`
}

// A Todo is one step of the agent's plan.
type Todo struct {
	Description string `json:"description"`
	Status      string `json:"status"` // pending, in_progress, completed, cancelled
}

// SubagentInfo identifies a subagent run on its parent's stream.
type SubagentInfo struct {
	RunID string  `json:"runId"`
	Agent string  `json:"agent"`
	Task  string  `json:"task,omitempty"` // subagent_start
	End   *RunEnd `json:"end,omitempty"`  // subagent_end
	// Cancel, on subagent_start, stops the subagent alone: the parent goes
	// on with its partial result.
	Cancel func() `json:"-"`
}

// A ToolCall is a function call of the model, as the harness scheduled it.
type ToolCall struct {
	ID      string          `json:"id"`
	Name    string          `json:"name"`
	Args    json.RawMessage `json:"args,omitempty"`
	Display string          `json:"display,omitempty"`
}

// A ToolResult is what a tool call returned to the model.
type ToolResult struct {
	Output   string        `json:"output,omitempty"`
	IsError  bool          `json:"isError,omitempty"`
	Display  string        `json:"display,omitempty"`
	Duration time.Duration `json:"durationNs,omitempty"`
}

// EditInfo describes a proposed change and, once decided, its outcome.
type EditInfo struct {
	Path     string  `json:"path"`
	Name     string  `json:"name"`
	Added    int     `json:"added"`
	Deleted  int     `json:"deleted"`
	Create   bool    `json:"create,omitempty"`
	Diff     string  `json:"diff,omitempty"`
	Outcome  Outcome `json:"outcome,omitempty"`
	Message  string  `json:"message,omitempty"`
	Reason   string  `json:"reason,omitempty"`
	Rejected []int   `json:"rejectedHunks,omitempty"`
}

// Usage counts the tokens of model calls, as the API's usageMetadata does.
type Usage struct {
	Prompt   int64 `json:"prompt"`   // the prompt, cached tokens included
	Output   int64 `json:"output"`   // the answer, thoughts excluded
	Thoughts int64 `json:"thoughts"` // the model's thinking
	Cached   int64 `json:"cached"`   // of Prompt, those read from the cache
	// ToolUse is the prompt of the model's own tool use (search, code
	// execution), counted apart from Prompt.
	ToolUse int64 `json:"toolUse,omitempty"`
	// Cost is the estimated cost of the calls, in US dollars, from the
	// price of each call's model ([Prices]). Unpriced says some calls were
	// of a model without a price: Cost leaves them out.
	Cost     float64 `json:"cost,omitempty"`
	Unpriced bool    `json:"unpriced,omitempty"`
}

// Add adds u2 to u.
func (u *Usage) Add(u2 Usage) {
	u.Prompt += u2.Prompt
	u.Output += u2.Output
	u.Thoughts += u2.Thoughts
	u.Cached += u2.Cached
	u.ToolUse += u2.ToolUse
	u.Cost += u2.Cost
	u.Unpriced = u.Unpriced || u2.Unpriced
}

// RunEnd is the outcome of a run.
type RunEnd struct {
	Reason StopReason `json:"reason"`
	// Result is complete_task's result: the text answer, or the JSON of the
	// structured output.
	Result string `json:"result,omitempty"`
	Error  string `json:"error,omitempty"`
	Turns  int    `json:"turns"`
}
