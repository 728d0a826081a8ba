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
	finishing := func(reason genai.FinishReason, chunks ...geminitest.Chunk) geminitest.Turn {
		if len(chunks) == 0 {
			chunks = []geminitest.Chunk{{}}
		}
		chunks[len(chunks)-1].FinishReason = reason
		return geminitest.Reply(chunks...)
	}
	slow := geminitest.Reply(complete("late"))
	slow.Delay = time.Hour
	tests := []struct {
		name    string
		turns   []geminitest.Turn
		timeout time.Duration
		reason  agent.StopReason
		says    string // in the run's error, or in what the model is told next
		calls   int    // model requests
	}{
		{name: "429 with Retry-After", turns: []geminitest.Turn{{Status: 429, RetryAfter: "2"}, done}, reason: agent.StopGoal, calls: 2},
		{name: "429 without Retry-After", turns: []geminitest.Turn{{Status: 429}, done}, reason: agent.StopGoal, calls: 2},
		{name: "500", turns: []geminitest.Turn{{Status: 500}, done}, reason: agent.StopGoal, calls: 2},
		{name: "503", turns: []geminitest.Turn{{Status: 503}, done}, reason: agent.StopGoal, calls: 2},
		{name: "persistent 503", turns: []geminitest.Turn{{Status: 503}, {Status: 503}, {Status: 503}}, reason: agent.StopError, says: "after 3 attempts", calls: 3},
		{name: "connection reset before any chunk", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{}, CutAfter: 1}, done}, reason: agent.StopGoal, calls: 2},
		{name: "stream cut mid-answer", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{geminitest.Text("I will"), geminitest.Text(" read")}, CutAfter: 1}},
			reason: agent.StopError, says: "unexpected EOF", calls: 1},
		{name: "malformed chunk", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{geminitest.Text("hi")}, Malformed: true}}, reason: agent.StopError, says: "model:", calls: 1},
		{name: "empty candidates", turns: []geminitest.Turn{{Chunks: []geminitest.Chunk{{EmptyCandidates: true}}}}, reason: agent.StopError, says: "empty answer", calls: 1},
		{name: "SAFETY", turns: []geminitest.Turn{finishing(genai.FinishReasonSafety)}, reason: agent.StopError, says: "withheld by its filters (SAFETY)", calls: 1},
		{name: "RECITATION", turns: []geminitest.Turn{finishing(genai.FinishReasonRecitation, geminitest.Text("The text"))}, reason: agent.StopError, says: "RECITATION", calls: 1},
		{name: "MAX_TOKENS", turns: []geminitest.Turn{finishing(genai.FinishReasonMaxTokens, geminitest.Text("Here is a very long")), done},
			reason: agent.StopGoal, says: "cut off at the output limit", calls: 2},
		{name: "MALFORMED_FUNCTION_CALL", turns: []geminitest.Turn{finishing(genai.FinishReasonMalformedFunctionCall), done},
			reason: agent.StopGoal, says: "could not be parsed", calls: 2},
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
			reqs := srv.Requests()
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
			if tt.name == "429 with Retry-After" && (len(slept) != 1 || slept[0] != 2*time.Second) {
				t.Errorf("retry waits = %v, want the server's 2s", slept)
			}
		})
	}
}
