package acp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// A turn is one session/prompt under way: its run's events become
// session/update notifications, and its proposer and approver ask the
// client about the calls those notifications showed.
type turn struct {
	ctx   context.Context // the turn's: it ends with the turn
	ss    *session
	fs    *clientFS
	runID string // the main run's, once built
	size  int    // its model's context window, in tokens
	// spent is what the session cost before the turn, and the turn's model
	// calls (its subagents' too) so far, in US dollars; the run's goroutine's.
	spent float64

	mu    sync.Mutex       // the run's goroutine and its tool calls' (proposer, approver)
	calls map[string]*call // by wire id
	text  strings.Builder  // the message since the last tool call
	spoke bool             // a message was sent in this turn
	loops int              // loop questions asked
}

// A call is a tool call as the client was shown it.
type call struct {
	name      string
	title     string
	kind      acpsdk.ToolKind
	locations []acpsdk.ToolCallLocation
	diff      *acpsdk.ToolCallContent // the change it proposed, if any
	hidden    bool                    // complete_task: its result is the answer
}

func newTurn(ctx context.Context, ss *session) *turn {
	t := &turn{ctx: ctx, ss: ss, calls: make(map[string]*call)}
	t.fs = &clientFS{Folder: ss.ws.Folder(ss.root), ctx: ctx, ss: ss}
	return t
}

// wireID is a tool call's id on the wire: unique in the session, across
// turns and subagents.
func wireID(runID, callID string) acpsdk.ToolCallId {
	return acpsdk.ToolCallId(runID + "/" + callID)
}

// event shows one event of the run (all but its run_end).
func (t *turn) event(ev agent.Event) {
	main := ev.RunID == t.runID
	switch ev.Type {
	case agent.EventThought:
		if main && ev.Text != "" {
			t.ss.update(t.ctx, acpsdk.UpdateAgentThoughtText(ev.Text))
		}
	case agent.EventText:
		if main && ev.Text != "" {
			t.mu.Lock()
			t.text.WriteString(ev.Text)
			t.spoke = true
			t.mu.Unlock()
			t.ss.update(t.ctx, acpsdk.UpdateAgentMessageText(ev.Text))
		}
	case agent.EventToolCall:
		t.startCall(ev)
	case agent.EventApprovalDecided:
		if ev.Call != nil && ev.Approval != nil && ev.Approval.Allowed != nil && *ev.Approval.Allowed {
			t.ss.update(t.ctx, acpsdk.UpdateToolCall(wireID(ev.RunID, ev.Call.ID), acpsdk.WithUpdateStatus(acpsdk.ToolCallStatusInProgress)))
		}
	case agent.EventToolResult:
		t.endCall(ev)
	case agent.EventSubagentActivity:
		// A subagent's calls are shown as calls; its thoughts and text
		// reach the user through its parent's answer; what it spends counts.
		if in := ev.Inner; in != nil && (in.Type == agent.EventToolCall || in.Type == agent.EventToolResult || in.Type == agent.EventApprovalDecided) {
			t.event(*in)
		} else if in != nil && in.Type == agent.EventUsage && in.Usage != nil {
			t.spent += in.Usage.Cost
		}
	case agent.EventUsage:
		if main && ev.Usage != nil {
			t.spent += ev.Usage.Cost
			u := &acpsdk.SessionUsageUpdate{Used: int(ev.Usage.Prompt + ev.Usage.Output + ev.Usage.Thoughts), Size: t.size}
			if t.spent > 0 {
				u.Cost = &acpsdk.Cost{Amount: t.spent, Currency: "USD"}
			}
			t.ss.update(t.ctx, acpsdk.SessionUpdate{UsageUpdate: u})
		}
	case agent.EventWarning:
		if main && ev.Text != "" {
			t.ss.update(t.ctx, acpsdk.UpdateAgentMessageText(t.separator()+"agentls: "+ev.Text+"\n\n"))
		}
	case agent.EventRetry:
		if main && ev.Retry != nil {
			t.retry(*ev.Retry)
		}
	}
}

// retry shows a model call tried again; an answer that broke off after
// part of it was shown is said to be void.
func (t *turn) retry(ri agent.RetryInfo) {
	t.mu.Lock()
	void := ri.Discard && t.text.Len() > 0
	t.text.Reset()
	t.mu.Unlock()
	if void {
		t.ss.update(t.ctx, acpsdk.UpdateAgentMessageText("\n\n(agentls: that answer broke off and does not count; asking the model again.)\n\n"))
	}
	t.ss.update(t.ctx, acpsdk.UpdateAgentThoughtText(ri.Summary()+"\n"))
}

// startCall shows a tool call, pending.
func (t *turn) startCall(ev agent.Event) {
	if ev.Call == nil {
		return
	}
	c := &call{name: ev.Call.Name, title: ev.Call.Display, kind: kindOf(ev.Call.Name), locations: t.locations(ev.Call.Args)}
	if c.title == "" {
		c.title = c.name
	}
	c.title, _ = edits.VisibleLine(c.title) // the model's words: nothing hidden in them
	id := wireID(ev.RunID, ev.Call.ID)
	t.mu.Lock()
	t.calls[string(id)] = c
	if ev.RunID == t.runID {
		t.text.Reset()
	}
	c.hidden = c.name == "complete_task" && ev.RunID == t.runID
	t.mu.Unlock()
	if c.hidden {
		return
	}
	opts := []acpsdk.ToolCallStartOpt{acpsdk.WithStartKind(c.kind), acpsdk.WithStartStatus(acpsdk.ToolCallStatusPending),
		acpsdk.WithStartLocations(c.locations)}
	if len(ev.Call.Args) > 0 {
		opts = append(opts, acpsdk.WithStartRawInput(ev.Call.Args))
	}
	t.ss.update(t.ctx, acpsdk.StartToolCall(id, c.title, opts...))
}

// call returns what the client was shown of a call; a call it was not
// shown (none: the consumer sees each call before it runs) gets a title
// of its own.
func (t *turn) call(id acpsdk.ToolCallId, name string) call {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.calls[string(id)]; c != nil {
		return *c
	}
	return call{name: name, title: name, kind: kindOf(name)}
}

// setDiff records the change a call proposed.
func (t *turn) setDiff(id acpsdk.ToolCallId, diff acpsdk.ToolCallContent) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c := t.calls[string(id)]; c != nil {
		c.diff = &diff
	}
}

// endCall shows a call's result: its status, and as content the change it
// proposed, a command's output as a terminal shows it, or the result's
// summary (the model's whole message when it failed). write_todos also
// shows the plan.
func (t *turn) endCall(ev agent.Event) {
	if ev.Call == nil || ev.Result == nil {
		return
	}
	id := wireID(ev.RunID, ev.Call.ID)
	c := t.call(id, ev.Call.Name)
	if c.hidden {
		return
	}
	res := ev.Result
	status := acpsdk.ToolCallStatusCompleted
	if res.IsError {
		status = acpsdk.ToolCallStatusFailed
	}
	var content []acpsdk.ToolCallContent
	switch {
	case c.diff != nil:
		content = append(content, *c.diff)
		if res.IsError {
			content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(res.Output)))
		}
	case c.kind == acpsdk.ToolKindExecute:
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(fenced(res.Output))))
	case res.IsError:
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(res.Output)))
	case res.Display != "":
		content = append(content, acpsdk.ToolContent(acpsdk.TextBlock(res.Display)))
	}
	opts := []acpsdk.ToolCallUpdateOpt{acpsdk.WithUpdateStatus(status)}
	if content != nil {
		opts = append(opts, acpsdk.WithUpdateContent(content))
	}
	t.ss.update(t.ctx, acpsdk.UpdateToolCall(id, opts...))
	if c.name == "write_todos" && !res.IsError && ev.RunID == t.runID {
		t.ss.update(t.ctx, plan(ev.Todos))
	}
}

// plan is the agent's plan as the client shows it. ACP has no cancelled
// step: one is shown completed, and says it was cancelled.
func plan(todos []agent.Todo) acpsdk.SessionUpdate {
	entries := []acpsdk.PlanEntry{}
	for _, td := range todos {
		e := acpsdk.PlanEntry{Content: td.Description, Priority: acpsdk.PlanEntryPriorityMedium, Status: acpsdk.PlanEntryStatusPending}
		switch td.Status {
		case "in_progress":
			e.Status = acpsdk.PlanEntryStatusInProgress
		case "completed":
			e.Status = acpsdk.PlanEntryStatusCompleted
		case "cancelled":
			e.Status, e.Content = acpsdk.PlanEntryStatusCompleted, td.Description+" (cancelled)"
		}
		entries = append(entries, e)
	}
	return acpsdk.UpdatePlan(entries...)
}

// fenced puts a command's output in a code block, as a terminal shows it.
func fenced(out string) string {
	fence := "```"
	for strings.Contains(out, fence) {
		fence += "`"
	}
	return fence + "\n" + strings.TrimRight(out, "\n") + "\n" + fence
}

// kindOf is a tool's kind, as clients pick icons by it.
func kindOf(name string) acpsdk.ToolKind {
	switch name {
	case "read_file", "get_diagnostics", "activate_skill":
		return acpsdk.ToolKindRead
	case "list_directory", "glob", "grep_search", "google_web_search":
		return acpsdk.ToolKindSearch
	case "replace", "write_file", "save_memory":
		return acpsdk.ToolKindEdit
	case "run_shell_command":
		return acpsdk.ToolKindExecute
	case "write_todos", "codebase_investigator":
		return acpsdk.ToolKindThink
	case "web_fetch":
		return acpsdk.ToolKindFetch
	}
	return acpsdk.ToolKindOther
}

// locations are the files and folders a call's arguments name, as the
// client names them; a path the workspace refuses is left out.
func (t *turn) locations(args json.RawMessage) []acpsdk.ToolCallLocation {
	var a struct {
		FilePath string `json:"file_path"`
		DirPath  string `json:"dir_path"`
	}
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	var out []acpsdk.ToolCallLocation
	for _, p := range []string{a.FilePath, a.DirPath} {
		if p == "" {
			continue
		}
		if abs, err := t.fs.Resolve(p); err == nil {
			out = append(out, acpsdk.ToolCallLocation{Path: t.ss.ws.ClientPath(abs)})
		}
	}
	return out
}

// lastText is the message since the last tool call.
func (t *turn) lastText() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.text.String()
}

// separator goes before a message of agentls's own: a blank line when the
// model has spoken.
func (t *turn) separator() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.spoke {
		return "\n\n"
	}
	return ""
}
