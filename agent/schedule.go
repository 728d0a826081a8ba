package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"
)

// A phase is the running of one turn's tool calls. Tool goroutines hand their
// events to the run's goroutine through it.
type phase struct {
	events chan delivery
	over   chan struct{} // closed when every call of the phase has returned
}

// A delivery is an event on its way to the consumer; done is closed once
// the consumer has it.
type delivery struct {
	ev   Event
	done chan struct{}
}

// send hands ev to the run's goroutine and waits until the consumer has
// taken it, so a tool's events are seen before what the tool does next (the
// diff is shown before the question about it).
func (p *phase) send(ev Event) {
	d := delivery{ev: ev, done: make(chan struct{})}
	select {
	case p.events <- d:
		<-d.done
	case <-p.over: // the call already returned: too late to report
	}
}

// Planner is implemented by tools whose calls set the agent's plan
// (write_todos): the tool_result event of a successful call carries the plan
// that Plan reads from the call's arguments.
type Planner interface {
	Plan(args json.RawMessage) []Todo
}

// A scheduled call is one tool call of the current turn.
type scheduled struct {
	call    *Call
	tool    Tool
	locks   []string
	after   []*scheduled // calls that must finish first
	done    chan struct{}
	result  Result
	err     error
	elapsed time.Duration
}

// runTools runs the function calls of one turn and returns their responses in
// the model's order. Read-only calls run in parallel; calls that share a lock
// run one after another in the model's order. A non-nil error stops the run.
func (r *run) runTools(ctx context.Context, fcs []*genai.FunctionCall) ([]*genai.Part, error) {
	calls := make([]*scheduled, len(fcs))
	for i, fc := range fcs {
		args, err := json.Marshal(fc.Args)
		if err != nil || fc.Args == nil {
			args = json.RawMessage("{}")
		}
		id := fc.ID
		if id == "" {
			id = fmt.Sprintf("%s-%d", r.promptID(), i)
		}
		s := &scheduled{
			call: &Call{ID: id, Name: fc.Name, Args: args, RunID: r.id, PromptID: r.promptID(), run: r},
			tool: r.tools[fc.Name],
			done: make(chan struct{}),
		}
		if l, ok := s.tool.(Locker); ok {
			s.locks = l.Locks(args)
		}
		for _, prev := range calls[:i] {
			if conflicts(s.locks, prev.locks) {
				s.after = append(s.after, prev)
			}
		}
		calls[i] = s
		display := ""
		if d, ok := s.tool.(Describer); ok {
			display = d.Describe(args)
		}
		r.emit(Event{Type: EventToolCall, Call: &ToolCall{ID: id, Name: fc.Name, Args: args, Display: display}})
	}

	p := &phase{events: make(chan delivery), over: make(chan struct{})}
	r.phase = p
	defer func() { r.phase = nil }()
	var wg sync.WaitGroup
	for _, s := range calls {
		wg.Go(func() {
			defer close(s.done)
			r.execute(ctx, s)
			res := &ToolResult{Output: s.result.Output, IsError: s.result.IsError, Display: s.result.Display, Duration: s.elapsed}
			if s.err != nil {
				res.Output, res.IsError = s.err.Error(), true
			}
			ev := Event{Type: EventToolResult, PromptID: s.call.PromptID,
				Call: &ToolCall{ID: s.call.ID, Name: s.call.Name}, Result: res}
			if pl, ok := s.tool.(Planner); ok && !res.IsError {
				ev.Todos = pl.Plan(s.call.Args)
			}
			p.send(ev)
		})
	}
	go func() { wg.Wait(); close(p.over) }()
	for running := true; running; {
		select {
		case d := <-p.events:
			if d.ev.Type == EventUsage && d.ev.Usage != nil {
				r.usage.Add(*d.ev.Usage) // a tool's own model call (Call.Generate)
			}
			r.emit(d.ev)
			close(d.done)
		case <-p.over:
			running = false
		}
	}

	parts := make([]*genai.Part, len(calls))
	var failed error
	for i, s := range calls {
		resp := map[string]any{"output": s.result.Output}
		if s.result.IsError {
			resp = map[string]any{"error": s.result.Output}
		}
		if s.err != nil {
			resp = map[string]any{"error": s.err.Error()}
			if failed == nil {
				failed = fmt.Errorf("tool %s: %w", s.call.Name, s.err)
			}
		}
		parts[i] = &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: fcs[i].ID, Name: s.call.Name, Response: resp}}
	}
	return parts, failed
}

// execute runs one call once the calls it must follow have finished.
func (r *run) execute(ctx context.Context, s *scheduled) {
	for _, prev := range s.after {
		select {
		case <-prev.done:
		case <-ctx.Done():
			s.err = context.Cause(ctx)
			return
		}
	}
	if s.tool == nil {
		s.result = Errorf("unknown tool %q; the tools you can call are: %s", s.call.Name, strings.Join(r.toolNames(), ", "))
		return
	}
	start := r.now()
	defer func() {
		s.elapsed = r.now().Sub(start)
		if v := recover(); v != nil {
			s.err = fmt.Errorf("panic: %v\n%s", v, debug.Stack())
		}
	}()
	if res, ok, err := r.permit(ctx, s.call, s.tool); !ok {
		s.result, s.err = res, err
		return
	}
	s.result, s.err = s.tool.Run(ctx, s.call)
}

func (r *run) toolNames() []string {
	names := make([]string, 0, len(r.tools))
	for n := range r.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// conflicts reports whether two calls' locks overlap; "*" overlaps any lock.
func conflicts(a, b []string) bool {
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	if slices.Contains(a, "*") || slices.Contains(b, "*") {
		return true
	}
	for _, x := range a {
		if slices.Contains(b, x) {
			return true
		}
	}
	return false
}
