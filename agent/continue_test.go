package agent_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// roundTrip is what a store does to a history change: JSON and back.
func roundTrip(t *testing.T, c agent.HistoryChange) agent.HistoryChange {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out agent.HistoryChange
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestContinuedRun: a second run given the first run's history, as
// SaveHistory told it (through JSON), sends the model every turn of the
// first, thought signatures byte for byte, with its own task added to the
// last user message.
func TestContinuedRun(t *testing.T) {
	t.Parallel()
	call := geminitest.Call("echo", map[string]any{"text": "hi"})
	call.ThoughtSignature = []byte{0, 1, 2, 0xfe, 0xff, 's', 'i', 'g'}
	done := complete("explained")
	done.ThoughtSignature = []byte("sig-2")
	srv, m := fake(t, geminitest.Reply(call), geminitest.Reply(done), geminitest.Reply(complete("fixed")))

	var history []*genai.Content
	changes := 0
	save := func(c agent.HistoryChange) {
		changes++
		var ok bool
		if history, ok = roundTrip(t, c).Apply(history); !ok {
			t.Fatalf("change %d keeps %d of %d contents", changes, c.Keep, len(history))
		}
	}
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, SaveHistory: save}, agent.Task{Prompt: "explain it"})
	if end(evs).Reason != agent.StopGoal {
		t.Fatalf("first run: %+v", end(evs))
	}
	if len(history) != 5 || changes < 3 {
		t.Fatalf("saved history has %d contents after %d changes, want the task, two turns and their results", len(history), changes)
	}

	evs = collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, History: history, SaveHistory: save},
		agent.Task{Prompt: "now fix it", Notes: []string{"the user reverted run main-1."}})
	if end(evs).Reason != agent.StopGoal || end(evs).Result != "fixed" {
		t.Fatalf("second run: %+v", end(evs))
	}
	reqs := srv.Requests()
	first, second := reqs[1], reqs[2] // the first run's last request, the second run's first
	if len(second.Contents) != 5 {
		t.Fatalf("the second run's first request has %d contents, want 5", len(second.Contents))
	}
	// Every content the first run sent, and its last answer, go again as
	// they were.
	sent := append(slices.Clone(first.Contents), history[3])
	if diff := cmp.Diff(jsonOf(t, sent), jsonOf(t, second.Contents[:4])); diff != "" {
		t.Errorf("the first run's turns (-first run +second run):\n%s", diff)
	}
	var sigs [][]byte
	for _, c := range second.Contents {
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				sigs = append(sigs, p.ThoughtSignature)
			}
		}
	}
	if diff := cmp.Diff([][]byte{call.ThoughtSignature, []byte("sig-2")}, sigs); diff != "" {
		t.Errorf("thought signatures sent again (-want +got):\n%s", diff)
	}
	last := second.Contents[4]
	if last.Role != genai.RoleUser || len(last.Parts) != 2 || last.Parts[0].FunctionResponse == nil || last.Parts[0].FunctionResponse.Name != "complete_task" {
		t.Fatalf("last content = %s, want complete_task's response and the new task", jsonOf(t, last))
	}
	task := last.Parts[1].Text
	if !strings.HasPrefix(task, "Note: the user reverted run main-1.\n\nnow fix it") {
		t.Errorf("the new task reads %q", task)
	}
	if len(history) != 7 {
		t.Errorf("history after the second run has %d contents, want 7", len(history))
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.MarshalIndent(v, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBudget: a run that passes its budget gets one recovery turn, with
// only complete_task, and stops with StopBudget and that turn's answer.
func TestBudget(t *testing.T) {
	t.Parallel()
	costly := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CandidatesTokenCount: 100, TotalTokenCount: 1100}
	c1 := geminitest.Call("echo", map[string]any{"text": "a"})
	c1.Usage = costly // $0.0015 + $0.0009 at gemini-flash-latest's prices
	c2 := complete("what I have so far")
	srv, m := fake(t, geminitest.Reply(c1), geminitest.Reply(c2))
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, MaxBudget: 0.002}, agent.Task{Prompt: "go"})
	got := end(evs)
	if got.Reason != agent.StopBudget || got.Result != "what I have so far" || got.Error != "spent $0.0024, more than the run's budget of $0.002" {
		t.Errorf("run end = %+v, want budget, the recovery turn's answer and what was spent", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want the turn and the recovery turn", len(reqs))
	}
	if diff := cmp.Diff([]string{"complete_task"}, declared(reqs[1])); diff != "" {
		t.Errorf("the recovery turn declares (-want +got):\n%s", diff)
	}
	if !strings.Contains(lastUserText(reqs[1]), "spent its budget") {
		t.Errorf("final warning = %q", lastUserText(reqs[1]))
	}
}

// TestBudgetNotReached: under its budget, a run ends as usual.
func TestBudgetNotReached(t *testing.T) {
	t.Parallel()
	_, m := fake(t, geminitest.Reply(complete("ok")))
	evs := collect(t, t.Context(), agent.Config{Model: m, MaxBudget: 1}, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal {
		t.Errorf("run end = %+v", got)
	}
}

// TestContinuedRunCompresses: a continued history is compressed like any
// other, and what SaveHistory tells is what the model was sent.
func TestContinuedRunCompresses(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 60_000) // 15,000 tokens, more than half the window
	history := []*genai.Content{
		genai.NewContentFromText("read the log", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": "log"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "echo", Response: map[string]any{"output": big}}}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "complete_task", Args: map[string]any{"result": "read"}}}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "complete_task", Response: map[string]any{"output": "done"}}}}},
	}
	srv, m := fake(t, geminitest.Reply(complete("summed up")))
	saved := slices.Clone(history)
	save := func(c agent.HistoryChange) {
		var ok bool
		if saved, ok = roundTrip(t, c).Apply(saved); !ok {
			t.Fatalf("change keeps %d of %d", c.Keep, len(saved))
		}
	}
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, History: history, SaveHistory: save,
		ContextWindow: 20_000, CompressAt: 0.5}, agent.Task{Prompt: "sum it up"})
	var methods []string
	for _, ev := range evs {
		if ev.Type == agent.EventCompressed {
			methods = append(methods, ev.Compressed.Method)
		}
	}
	if len(methods) != 1 {
		t.Errorf("compressions: %q, want one", methods)
	}
	sent := srv.Requests()[0].Contents
	if b := jsonOf(t, sent); strings.Contains(b, big) || !strings.Contains(b, "to save context") {
		t.Errorf("the request still holds the big output, or says nothing of it: %.3000s", strings.ReplaceAll(b, big, "BIG"))
	}
	if len(saved) < len(sent) {
		t.Fatalf("saved %d contents, sent %d", len(saved), len(sent))
	}
	if diff := cmp.Diff(jsonOf(t, sent), jsonOf(t, saved[:len(sent)])); diff != "" {
		t.Errorf("what was saved is not what was sent (-sent +saved):\n%s", diff)
	}
}
