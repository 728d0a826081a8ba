package agent_test

import (
	"context"
	"encoding/json"
	"iter"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// fake starts a fake Gemini server playing turns and returns a model that
// reaches it through the real genai SDK.
func fake(t *testing.T, turns ...geminitest.Turn) (*geminitest.Server, agent.Model) {
	t.Helper()
	srv := geminitest.NewServer(t, turns...)
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: "test-key", BaseURL: srv.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

// collect runs to the end and returns the events.
func collect(t *testing.T, ctx context.Context, cfg agent.Config, task agent.Task) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev, err := range agent.Run(ctx, cfg, task) {
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 || evs[len(evs)-1].Type != agent.EventRunEnd {
		t.Fatalf("the stream did not end with run_end: %v", types(evs))
	}
	for _, ev := range evs[:len(evs)-1] {
		if ev.Type == agent.EventRunEnd {
			t.Fatalf("run_end before the end: %v", types(evs))
		}
	}
	return evs
}

func types(evs []agent.Event) []agent.EventType {
	var out []agent.EventType
	for _, ev := range evs {
		out = append(out, ev.Type)
	}
	return out
}

func end(evs []agent.Event) agent.RunEnd { return *evs[len(evs)-1].End }

func complete(result string) geminitest.Chunk {
	return geminitest.Call("complete_task", map[string]any{"result": result})
}

func TestStopReasons(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		turns    []geminitest.Turn
		maxTurns int
		want     agent.RunEnd
	}{
		{
			name:  "goal",
			turns: []geminitest.Turn{geminitest.Reply(geminitest.Text("Done."), complete("all good"))},
			want:  agent.RunEnd{Reason: agent.StopGoal, Result: "all good", Turns: 1},
		},
		{
			name: "no complete_task",
			// The final warning turn does not call complete_task either.
			turns: []geminitest.Turn{geminitest.Reply(geminitest.Text("I think it is fine.")), geminitest.Reply(geminitest.Text("Still fine."))},
			want: agent.RunEnd{Reason: agent.StopNoCompleteTask, Result: "I think it is fine.",
				Error: "the model stopped without calling complete_task", Turns: 2},
		},
		{
			name: "max turns",
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("echo", map[string]any{"text": "1"})),
				geminitest.Reply(geminitest.Call("echo", map[string]any{"text": "2"})),
				geminitest.Reply(geminitest.Text("I give up.")),
			},
			maxTurns: 2,
			want:     agent.RunEnd{Reason: agent.StopMaxTurns, Error: "reached the limit of 2 turns", Turns: 3},
		},
		{
			name:  "model error",
			turns: []geminitest.Turn{{Status: 500, ErrMessage: "backend exploded"}},
			want:  agent.RunEnd{Reason: agent.StopError, Turns: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, m := fake(t, tt.turns...)
			evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()},
				Agent: agent.Definition{MaxTurns: tt.maxTurns}}, agent.Task{Prompt: "go"})
			got := end(evs)
			if tt.want.Reason == agent.StopError {
				if !strings.Contains(got.Error, "backend exploded") {
					t.Errorf("error = %q, want the server's message", got.Error)
				}
				got.Error = ""
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("run end (-want +got):\n%s", diff)
			}
		})
	}
}

type echoArgs struct {
	Text string `json:"text"`
}

func echoTool() agent.Tool {
	return agent.NewFunc("echo", "Echo text.", func(ctx context.Context, call *agent.Call, a echoArgs) (agent.Result, error) {
		return agent.Result{Output: a.Text}, nil
	})
}

func TestCancelStopsTheRun(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	slow := geminitest.Reply(complete("too late"))
	slow.Delay = time.Hour
	slow.Check = func(geminitest.Request) error { cancel(); return nil } // cancel while the model is thinking
	srv, m := fake(t, slow)
	var evs []agent.Event
	for ev := range agent.Run(ctx, agent.Config{Model: m}, agent.Task{Prompt: "go"}) {
		evs = append(evs, ev)
	}
	if got := end(evs).Reason; got != agent.StopAborted {
		t.Errorf("stop reason = %s, want aborted", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("model calls = %d, want 1", n)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	slow := geminitest.Reply(complete("too late"))
	slow.Delay = time.Hour
	_, m := fake(t, slow)
	evs := collect(t, t.Context(), agent.Config{Model: m, Agent: agent.Definition{Timeout: 50 * time.Millisecond}}, agent.Task{Prompt: "go"})
	if got := end(evs).Reason; got != agent.StopTimeout {
		t.Errorf("stop reason = %s, want timeout", got)
	}
}

// askThenFinish is a model that calls ask_user, then complete_task.
type askThenFinish struct{ calls int }

func (m *askThenFinish) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.calls++
		fc := &genai.FunctionCall{Name: "ask_user", Args: map[string]any{}}
		if m.calls > 1 {
			fc = &genai.FunctionCall{Name: "complete_task", Args: map[string]any{"result": "answered"}}
		}
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
			Content:      &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: fc}}},
			FinishReason: genai.FinishReasonStop}}}, nil)
	}
}

// Time spent waiting for the user does not count against a run's time
// limit; time a tool spends on its own does. The clock is synctest's.
func TestUserWaitDoesNotCountAgainstTimeout(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name      string
		userWait  bool
		cancelled bool // the time limit cut the tool short
	}{
		{"the user takes five times the limit to answer", true, false},
		{"a tool takes five times the limit on its own", false, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var cancelled bool
				ask := agent.NewFunc("ask_user", "Ask.", func(ctx context.Context, call *agent.Call, _ struct{}) (agent.Result, error) {
					if tt.userWait {
						resume := call.UserWait()
						defer resume()
					}
					select {
					case <-time.After(5 * time.Second):
					case <-ctx.Done():
						cancelled = true
						return agent.Result{}, ctx.Err()
					}
					return agent.Result{Output: "yes"}, nil
				})
				evs := collect(t, t.Context(), agent.Config{Model: &askThenFinish{}, Tools: []agent.Tool{ask},
					Agent: agent.Definition{Timeout: time.Second}}, agent.Task{Prompt: "go"})
				if cancelled != tt.cancelled {
					t.Errorf("the time limit cut the tool short: %v, want %v (run end %+v)", cancelled, tt.cancelled, end(evs))
				}
				if !tt.cancelled && end(evs).Reason != agent.StopGoal {
					t.Errorf("run end = %+v, want goal", end(evs))
				}
			})
		})
	}
}

func TestToolResultsReturnInCallOrder(t *testing.T) {
	t.Parallel()
	srv, m := fake(t,
		geminitest.Reply(
			geminitest.Call("wait", map[string]any{"name": "first"}),
			geminitest.CallID("c2", "wait", map[string]any{"name": "second"}),
			geminitest.Call("missing_tool", nil),
			geminitest.Call("wait", map[string]any{"name": 7})),
		geminitest.Reply(complete("ok")))
	// "first" finishes only after "second" has: results still go back in
	// the model's order.
	secondDone := make(chan struct{})
	wait := agent.NewFunc("wait", "Wait.", func(ctx context.Context, call *agent.Call, a struct {
		Name string `json:"name"`
	}) (agent.Result, error) {
		if a.Name == "first" {
			<-secondDone
		} else {
			close(secondDone)
		}
		return agent.Result{Output: a.Name + " done"}, nil
	})
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{wait}, RunID: "main-1"}, agent.Task{Prompt: "go"})
	if got := end(evs).Reason; got != agent.StopGoal {
		t.Fatalf("stop reason = %s", got)
	}
	last := srv.Requests()[1].Contents
	parts := last[len(last)-1].Parts
	var got []string
	for _, p := range parts {
		b, _ := json.Marshal(p.FunctionResponse.Response)
		got = append(got, p.FunctionResponse.ID+" "+p.FunctionResponse.Name+" "+string(b))
	}
	want := []string{
		` wait {"output":"first done"}`,
		`c2 wait {"output":"second done"}`,
		` missing_tool {"error":"unknown tool \"missing_tool\"; the tools you can call are: complete_task, wait"}`,
	}
	if diff := cmp.Diff(want, got[:3]); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
	if !strings.Contains(got[3], "invalid arguments for wait") {
		t.Errorf("bad arguments gave %s", got[3])
	}
	// Calls without an id get <runId>#<turn>-<index> on their events.
	var ids []string
	for _, ev := range evs {
		if ev.Type == agent.EventToolCall && ev.Turn == 1 {
			ids = append(ids, ev.Call.ID)
			if ev.PromptID != "main-1#1" {
				t.Errorf("tool_call prompt id = %q", ev.PromptID)
			}
		}
	}
	if diff := cmp.Diff([]string{"main-1#1-0", "c2", "main-1#1-2", "main-1#1-3"}, ids); diff != "" {
		t.Errorf("call ids (-want +got):\n%s", diff)
	}
}

func TestStructuredOutput(t *testing.T) {
	t.Parallel()
	schema := &jsonschema.Schema{
		Type:       "object",
		Properties: map[string]*jsonschema.Schema{"summary": {Type: "string"}, "paths": {Type: "array", Items: &jsonschema.Schema{Type: "string"}}},
		Required:   []string{"summary", "paths"},
	}
	srv, m := fake(t,
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"summary": "x"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"summary": "found", "paths": []any{"a.go"}})))
	evs := collect(t, t.Context(), agent.Config{Model: m, Agent: agent.Definition{OutputSchema: schema}}, agent.Task{Prompt: "go"})
	got := end(evs)
	if got.Reason != agent.StopGoal || got.Turns != 2 {
		t.Fatalf("run end = %+v", got)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(got.Result), &out); err != nil || out["summary"] != "found" {
		t.Errorf("result = %s", got.Result)
	}
	first := srv.Requests()[1].Contents
	resp := first[len(first)-1].Parts[0].FunctionResponse.Response
	if msg, _ := resp["error"].(string); !strings.Contains(msg, "paths") {
		t.Errorf("invalid output told the model %v, want a message naming the missing property", resp)
	}
}

func TestThoughtsAndSignatures(t *testing.T) {
	t.Parallel()
	call := geminitest.Call("echo", map[string]any{"text": "hi"})
	call.ThoughtSignature = []byte("sig-1")
	srv, m := fake(t,
		geminitest.Reply(geminitest.Thought("**Planning the work**\n\nFirst I echo."), geminitest.Thought(" Then I finish."), call),
		geminitest.Reply(complete("ok")))
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}}, agent.Task{Prompt: "go"})
	var subjects []string
	for _, ev := range evs {
		if ev.Type == agent.EventThought {
			subjects = append(subjects, ev.Subject)
		}
	}
	if diff := cmp.Diff([]string{"Planning the work", "Planning the work"}, subjects); diff != "" {
		t.Errorf("thought subjects (-want +got):\n%s", diff)
	}
	// The signature goes back with the call; the thought text does not.
	model := srv.Requests()[1].Contents[1]
	var sig []byte
	for _, p := range model.Parts {
		if p.Thought && p.Text != "" {
			t.Errorf("thought text sent back: %q", p.Text)
		}
		if p.FunctionCall != nil {
			sig = p.ThoughtSignature
		}
	}
	if string(sig) != "sig-1" {
		t.Errorf("thought signature sent back = %q", sig)
	}
}

func TestUsageTotals(t *testing.T) {
	t.Parallel()
	u := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 3, ThoughtsTokenCount: 2, CachedContentTokenCount: 1}
	c1 := geminitest.Call("echo", map[string]any{"text": "a"})
	c1.Usage = u
	c2 := complete("ok")
	c2.Usage = u
	_, m := fake(t, geminitest.Reply(c1), geminitest.Reply(c2))
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}}, agent.Task{Prompt: "go"})
	// Twice 9 fresh prompt tokens at $1.50/M, 1 cached at $0.15/M and 5
	// output and thought tokens at $9.00/M (gemini-flash-latest).
	want := &agent.Usage{Prompt: 20, Output: 6, Thoughts: 4, Cached: 2, Cost: 2 * (9*1.50 + 1*0.15 + 5*9.00) / 1e6}
	if diff := cmp.Diff(want, evs[len(evs)-1].Usage, cmpopts.EquateApprox(0, 1e-12)); diff != "" {
		t.Errorf("usage totals (-want +got):\n%s", diff)
	}
}

func TestStoppingIterationCancelsTheRun(t *testing.T) {
	t.Parallel()
	_, m := fake(t, geminitest.Reply(geminitest.Call("block", nil)))
	var mu sync.Mutex
	var cancelled bool
	block := agent.NewFunc("block", "Block.", func(ctx context.Context, call *agent.Call, _ struct{}) (agent.Result, error) {
		call.Emit(agent.Event{Type: agent.EventText, Text: "working"})
		<-ctx.Done()
		mu.Lock()
		cancelled = true
		mu.Unlock()
		return agent.Result{}, ctx.Err()
	})
	for ev := range agent.Run(t.Context(), agent.Config{Model: m, Tools: []agent.Tool{block}}, agent.Task{Prompt: "go"}) {
		if ev.Type == agent.EventText {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if !cancelled {
		t.Error("the tool was not cancelled when the consumer stopped")
	}
}

func TestInvalidConfig(t *testing.T) {
	t.Parallel()
	n := 0
	for ev, err := range agent.Run(t.Context(), agent.Config{}, agent.Task{Prompt: "go"}) {
		n++
		if err == nil {
			t.Errorf("got event %v, want an error", ev.Type)
		}
	}
	if n != 1 {
		t.Errorf("got %d items, want 1 error", n)
	}
}
