package agent_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// TestModelFaults is the model half of docs/reliability.md's fault matrix:
// each fault, through the real SDK and the retry layer, ends in the
// documented outcome, and the run never crashes.
func TestModelFaults(t *testing.T) {
	t.Parallel()
	done := geminitest.Reply(complete("done"))
	slow := geminitest.Reply(complete("late"))
	slow.Delay = time.Hour
	const model = "gemini-flash-latest"
	withheld := func(reason genai.FinishReason) geminitest.Turn {
		return geminitest.Finish(reason, "The answer was withheld ("+string(reason)+").", geminitest.Text("The text"))
	}
	tests := []struct {
		name    string
		turns   []geminitest.Turn
		timeout time.Duration
		retired string // a model the server answers 404 "no longer available to new users"
		reason  agent.StopReason
		says    string // in the run's error, or in what the model is told next
		calls   int    // model requests (ListModels not counted)
	}{
		{name: "429 with RetryInfo", turns: []geminitest.Turn{geminitest.QuotaExceeded(model, "2s", geminitest.PerMinuteQuota), done}, reason: agent.StopGoal, calls: 2},
		{name: "429 without RetryInfo", turns: []geminitest.Turn{{Status: 429}, done}, reason: agent.StopGoal, calls: 2},
		{name: "429 daily quota used up", turns: []geminitest.Turn{geminitest.QuotaExceeded(model, "20s", geminitest.PerDayQuota), done},
			reason: agent.StopError, says: "the daily quota of this API key for model \"gemini-flash-latest\" is used up", calls: 1},
		{name: "500", turns: []geminitest.Turn{{Status: 500}, done}, reason: agent.StopGoal, calls: 2},
		{name: "503 overloaded", turns: []geminitest.Turn{geminitest.Overloaded(), done}, reason: agent.StopGoal, calls: 2},
		{name: "persistent 503", turns: []geminitest.Turn{geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded()},
			reason: agent.StopError, says: "is overloaded (503 UNAVAILABLE): The model is overloaded. Please try again later. (gave up after 3 attempts)", calls: 3},
		{name: "retired model", retired: model, turns: []geminitest.Turn{done},
			reason: agent.StopError, says: "model \"gemini-flash-latest\" is not available to this API key: This model models/gemini-flash-latest is no longer available to new users", calls: 1},
		{name: "connection reset before any chunk", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{}, CutAfter: 1}, done}, reason: agent.StopGoal, calls: 2},
		{name: "stream cut mid-answer", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{geminitest.Text("I will"), geminitest.Text(" read")}, CutAfter: 1}, done},
			reason: agent.StopGoal, calls: 2},
		{name: "503 event after some text", turns: []geminitest.Turn{
			{Chunks: []geminitest.Chunk{geminitest.Text("I will")}, MidStreamError: 503, ErrMessage: geminitest.OverloadedMessage}, done},
			reason: agent.StopGoal, calls: 2},
		{name: "500 event after a call", turns: []geminitest.Turn{
			{Chunks: []geminitest.Chunk{geminitest.Call("echo", map[string]any{"text": "x"})}, MidStreamError: 500}, done},
			reason: agent.StopGoal, calls: 2},
		{name: "malformed chunk", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{geminitest.Text("hi")}, Malformed: true}},
			reason: agent.StopError, says: "could not be read", calls: 1},
		{name: "empty candidates", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{{EmptyCandidates: true}}}, done}, reason: agent.StopGoal, calls: 2},
		{name: "empty STOP", turns: []geminitest.Turn{geminitest.Reply(), done}, reason: agent.StopGoal, calls: 2},
		{name: "only thoughts", turns: []geminitest.Turn{geminitest.Reply(geminitest.Thought("**Planning**\n\nHmm.")), done}, reason: agent.StopGoal, calls: 2},
		{name: "empty every time", turns: []geminitest.Turn{geminitest.Reply(), geminitest.Reply(), geminitest.Reply(), done},
			reason: agent.StopGoal, says: "your last answer was empty", calls: 4},
		{name: "SAFETY", turns: []geminitest.Turn{withheld(genai.FinishReasonSafety), done},
			reason: agent.StopGoal, says: "withheld by the model's filters (SAFETY): The answer was withheld (SAFETY).", calls: 2},
		{name: "SAFETY twice", turns: []geminitest.Turn{withheld(genai.FinishReasonSafety), withheld(genai.FinishReasonSafety)},
			reason: agent.StopError, says: "the model's answer was withheld by its filters (SAFETY): The answer was withheld (SAFETY).; rephrase the task", calls: 2},
		{name: "RECITATION", turns: []geminitest.Turn{withheld(genai.FinishReasonRecitation), done}, reason: agent.StopGoal, says: "The answer was withheld (RECITATION).", calls: 2},
		{name: "PROHIBITED_CONTENT", turns: []geminitest.Turn{withheld(genai.FinishReasonProhibitedContent), done}, reason: agent.StopGoal, says: "The answer was withheld (PROHIBITED_CONTENT).", calls: 2},
		{name: "BLOCKLIST", turns: []geminitest.Turn{withheld(genai.FinishReasonBlocklist), done}, reason: agent.StopGoal, says: "The answer was withheld (BLOCKLIST).", calls: 2},
		{name: "SPII", turns: []geminitest.Turn{withheld(genai.FinishReasonSPII), done}, reason: agent.StopGoal, says: "The answer was withheld (SPII).", calls: 2},
		{name: "OTHER", turns: []geminitest.Turn{withheld(genai.FinishReasonOther), done}, reason: agent.StopGoal, says: "The answer was withheld (OTHER).", calls: 2},
		{name: "blocked prompt", turns: []geminitest.Turn{geminitest.Blocked("PROHIBITED_CONTENT", "The prompt was blocked: prohibited content.")},
			reason: agent.StopError, says: "the prompt was blocked by the model's filters (PROHIBITED_CONTENT): The prompt was blocked: prohibited content.", calls: 1},
		{name: "MAX_TOKENS", turns: []geminitest.Turn{geminitest.Finish(genai.FinishReasonMaxTokens, "", geminitest.Text("Here is a very long")), done},
			reason: agent.StopGoal, says: "cut off at the output limit", calls: 2},
		{name: "MAX_TOKENS without parts", turns: []geminitest.Turn{geminitest.Finish(genai.FinishReasonMaxTokens, ""), done},
			reason: agent.StopGoal, says: "cut off at the output limit", calls: 2},
		{name: "MALFORMED_FUNCTION_CALL", turns: []geminitest.Turn{geminitest.Finish(genai.FinishReasonMalformedFunctionCall, "Malformed function call: print(default_api.echo(text=))"), done},
			reason: agent.StopGoal, says: "could not be used (MALFORMED_FUNCTION_CALL): Malformed function call: print(default_api.echo(text=))", calls: 2},
		{name: "UNEXPECTED_TOOL_CALL", turns: []geminitest.Turn{geminitest.Finish(genai.FinishReasonUnexpectedToolCall, ""), done},
			reason: agent.StopGoal, says: "could not be used (UNEXPECTED_TOOL_CALL)", calls: 2},
		{name: "unknown tool", turns: []geminitest.Turn{geminitest.Reply(geminitest.Call("rm_rf", nil)), done},
			reason: agent.StopGoal, says: `unknown tool \"rm_rf\"`, calls: 2},
		{name: "arguments of the wrong types", turns: []geminitest.Turn{geminitest.Reply(geminitest.Call("echo", map[string]any{"text": []any{1}})), done},
			reason: agent.StopGoal, says: "invalid arguments for echo", calls: 2},
		{name: "answer slower than the time limit", turns: []geminitest.Turn{slow, done}, timeout: 200 * time.Millisecond,
			reason: agent.StopGoal, says: "time limit", calls: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fake(t, tt.turns...)
			if tt.retired != "" {
				srv.Retire(tt.retired)
			}
			var slept []time.Duration
			m = agent.WithRetry(m, agent.RetryOptions{Attempts: 3, Sleep: func(ctx context.Context, d time.Duration) error {
				slept = append(slept, d)
				return nil
			}})
			evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, Agent: agent.Definition{Timeout: tt.timeout}}, agent.Task{Prompt: "go"})
			got := end(evs)
			if got.Reason != tt.reason {
				t.Fatalf("run end = %+v, want %s", got, tt.reason)
			}
			reqs := generateRequests(srv)
			if len(reqs) != tt.calls {
				t.Errorf("model requests = %d, want %d", len(reqs), tt.calls)
			}
			if tt.says != "" {
				told := got.Error
				if len(reqs) > 1 {
					told += string(reqs[len(reqs)-1].Body)
				}
				if !strings.Contains(told, tt.says) {
					t.Errorf("neither the run's error nor the model's next request says %q:\n%.600s", tt.says, told)
				}
			}
			if tt.name == "429 with RetryInfo" && (len(slept) != 1 || slept[0] != 2*time.Second) {
				t.Errorf("retry waits = %v, want the server's 2s", slept)
			}
			if strings.Contains(got.Error, "Details:") || strings.Contains(got.Error, "Error 4") || strings.Contains(got.Error, "Error 5") {
				t.Errorf("run error %q is genai's dump, not a sentence", got.Error)
			}
			noDatalessParts(t, reqs)
			if lists := len(srv.Requests()) - len(reqs); (lists != 0 && tt.retired == "") || (lists != 1 && tt.retired != "") {
				t.Errorf("ListModels calls = %d, want one only after a 404", lists)
			}
		})
	}
}

// generateRequests are the model calls srv received (not ListModels).
func generateRequests(srv *geminitest.Server) []geminitest.Request {
	var out []geminitest.Request
	for _, r := range srv.Requests() {
		if r.RPC != "listModels" {
			out = append(out, r)
		}
	}
	return out
}

// noDatalessParts checks that no request sent a part without data: the
// API refuses them.
func noDatalessParts(t *testing.T, reqs []geminitest.Request) {
	t.Helper()
	for i, r := range reqs {
		for j, c := range r.Contents {
			for k, p := range c.Parts {
				if p.Text == "" && p.FunctionCall == nil && p.FunctionResponse == nil && p.InlineData == nil && p.FileData == nil {
					t.Errorf("request %d, content %d, part %d has no data: %+v", i, j, k, p)
				}
				if p.Thought {
					t.Errorf("request %d, content %d, part %d is a thought sent back: %+v", i, j, k, p)
				}
			}
		}
	}
}
