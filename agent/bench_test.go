package agent_test

import (
	"context"
	"iter"
	"strconv"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// instant is a zero-latency model: each call answers one tool call, until
// turns calls have been made, then complete_task.
type instant struct {
	turns, calls int
}

func (m *instant) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.calls++
		fc := &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": strconv.Itoa(m.calls)}}
		if m.calls > m.turns {
			fc = &genai.FunctionCall{Name: "complete_task", Args: map[string]any{"result": "done"}}
		}
		yield(&genai.GenerateContentResponse{
			Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{
				{Text: "**Working**\n\nstep " + strconv.Itoa(m.calls), Thought: true},
				{FunctionCall: fc},
			}}, FinishReason: genai.FinishReasonStop}},
			UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 10},
		}, nil)
	}
}

// BenchmarkTurn measures the harness's own cost per turn: one model call
// (zero latency), its events, one tool call scheduled and answered.
func BenchmarkTurn(b *testing.B) {
	b.ReportAllocs()
	m := &instant{turns: b.N}
	cfg := agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, Agent: agent.Definition{MaxTurns: b.N + 10}, ContextWindow: 1 << 30}
	b.ResetTimer()
	for ev := range agent.Run(context.Background(), cfg, agent.Task{Prompt: "go"}) {
		if ev.Type == agent.EventRunEnd && ev.End.Reason != agent.StopGoal {
			b.Fatalf("run ended %+v", ev.End)
		}
	}
}
