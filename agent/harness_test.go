package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func lastUserText(req geminitest.Request) string {
	last := req.Contents[len(req.Contents)-1]
	var b strings.Builder
	for _, p := range last.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

func declared(req geminitest.Request) []string {
	var names []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

func TestRecoveryTurn(t *testing.T) {
	t.Parallel()
	echo := geminitest.Call("echo", map[string]any{"text": "x"})
	slow := geminitest.Reply(echo)
	slow.Delay = time.Hour
	tests := []struct {
		name    string
		turns   []geminitest.Turn
		def     agent.Definition
		warning string
	}{
		{"max turns", []geminitest.Turn{geminitest.Reply(echo)}, agent.Definition{MaxTurns: 1}, "turn limit"},
		{"no complete_task", []geminitest.Turn{geminitest.Reply(geminitest.Text("done, I think"))}, agent.Definition{}, "called no tool"},
		{"timeout", []geminitest.Turn{slow}, agent.Definition{Timeout: 100 * time.Millisecond}, "time limit"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			turns := append(tt.turns, geminitest.Reply(complete("best effort")))
			srv, m := fake(t, turns...)
			evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, Agent: tt.def}, agent.Task{Prompt: "go"})
			if got := end(evs); got.Reason != agent.StopGoal || got.Result != "best effort" {
				t.Errorf("run end = %+v, want goal with the recovery turn's result", got)
			}
			reqs := srv.Requests()
			final := reqs[len(reqs)-1]
			if !strings.Contains(lastUserText(final), tt.warning) || !strings.Contains(lastUserText(final), "final turn") {
				t.Errorf("final warning = %q", lastUserText(final))
			}
			if diff := cmp.Diff([]string{"complete_task"}, declared(final)); diff != "" {
				t.Errorf("the final turn declares (-want +got):\n%s", diff)
			}
			var warned bool
			for _, ev := range evs {
				warned = warned || (ev.Type == agent.EventTurnStart && ev.Text == "final warning")
			}
			if !warned {
				t.Error("no turn_start marked final warning")
			}
		})
	}
}

func TestNoRecoveryForErrorOrAbort(t *testing.T) {
	t.Parallel()
	srv, m := fake(t, geminitest.Turn{Status: 400, ErrMessage: "bad request"}, geminitest.Reply(complete("no")))
	evs := collect(t, t.Context(), agent.Config{Model: m}, agent.Task{Prompt: "go"})
	if got := end(evs).Reason; got != agent.StopError {
		t.Errorf("stop reason = %s", got)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("model calls = %d, want 1 (no recovery after an error)", n)
	}
}

func TestToolCallLoop(t *testing.T) {
	t.Parallel()
	same := geminitest.Reply(geminitest.Call("echo", map[string]any{"text": "again"}))
	var turns []geminitest.Turn
	for range 10 {
		turns = append(turns, same)
	}
	srv, m := fake(t, turns...)
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}}, agent.Task{Prompt: "go"})
	got := end(evs)
	if got.Reason != agent.StopLoop || got.Turns != 10 {
		t.Errorf("run end = %+v, want loop after 10 turns", got)
	}
	// The fifth repetition was answered with a warning.
	reqs := srv.Requests()
	if !strings.Contains(lastUserText(reqs[5]), "looks like a loop") {
		t.Errorf("no loop warning after the fifth call: %q", lastUserText(reqs[5]))
	}
	if strings.Contains(lastUserText(reqs[4]), "loop") {
		t.Errorf("warned too early: %q", lastUserText(reqs[4]))
	}
}

func TestTextLoop(t *testing.T) {
	t.Parallel()
	var chunks []geminitest.Chunk
	for range 12 {
		chunks = append(chunks, geminitest.Text("I will check the file."))
	}
	srv, m := fake(t, geminitest.Reply(chunks...), geminitest.Reply(complete("ok then")))
	evs := collect(t, t.Context(), agent.Config{Model: m}, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal {
		t.Errorf("run end = %+v, want goal after one warning", got)
	}
	if !strings.Contains(lastUserText(srv.Requests()[1]), "repeating the same text") {
		t.Errorf("second request's last message = %q", lastUserText(srv.Requests()[1]))
	}
	texts := 0
	for _, ev := range evs {
		if ev.Type == agent.EventText {
			texts++
		}
	}
	if texts != 10 {
		t.Errorf("text events = %d, want the stream cut at 10", texts)
	}
}

type bigArgs struct {
	N int `json:"n"`
}

// bigTool returns n kilobytes of output.
func bigTool() agent.Tool {
	return agent.NewFunc("big", "Big output.", func(ctx context.Context, call *agent.Call, a bigArgs) (agent.Result, error) {
		return agent.Result{Output: strings.Repeat("x", a.N*1024)}, nil
	})
}

// TestCompressionThroughSDK runs a history past the threshold: the old tool
// outputs are masked, and every call keeps its response. (compress_test.go
// covers summary and trimming step by step.)
func TestCompressionThroughSDK(t *testing.T) {
	t.Parallel()
	var turns []geminitest.Turn
	for i := range 4 {
		turns = append(turns, geminitest.Reply(geminitest.Call("big", map[string]any{"n": 4 + i})))
	}
	turns = append(turns, geminitest.Reply(complete("done")))
	srv, m := fake(t, turns...)
	evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{bigTool()}, ContextWindow: 8000}, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal {
		t.Fatalf("run end = %+v", got)
	}
	var comps []agent.Compression
	for _, ev := range evs {
		if ev.Type == agent.EventCompressed {
			comps = append(comps, *ev.Compressed)
		}
	}
	if len(comps) != 1 || comps[0].Method != "mask" || comps[0].After >= comps[0].Before {
		t.Fatalf("compressed events = %+v, want one mask that shrinks the prompt", comps)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	for i, c := range last.Contents {
		if c.Role == genai.RoleModel && len(funcCalls(c)) > 0 {
			if i+1 >= len(last.Contents) || len(funcResponses(last.Contents[i+1])) != len(funcCalls(c)) {
				t.Errorf("content %d: a function call lost its response", i)
			}
		}
	}
	if !strings.Contains(string(last.Body), "omitted to save context") {
		t.Error("no masked output in the last request")
	}
	if raw := (4 + 5 + 6 + 7) * 1024; len(last.Body) >= raw {
		t.Errorf("the last request has %d bytes, more than the %d bytes of tool output it would carry uncompressed", len(last.Body), raw)
	}
}

func funcCalls(c *genai.Content) (out []*genai.FunctionCall) {
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			out = append(out, p.FunctionCall)
		}
	}
	return out
}

func funcResponses(c *genai.Content) (out []*genai.FunctionResponse) {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			out = append(out, p.FunctionResponse)
		}
	}
	return out
}

func TestRouting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		router geminitest.Turn
		want   string
	}{
		{"strong", geminitest.Reply(geminitest.Text(`{"model":"strong","reason":"multi-file design"}`)), agent.DefaultStrongModel},
		{"fast", geminitest.Reply(geminitest.Text(`{"model":"fast","reason":"a rename"}`)), agent.DefaultFastModel},
		{"router fails", geminitest.Turn{Status: 503, ErrMessage: "overloaded"}, agent.DefaultFastModel},
		{"router babbles", geminitest.Reply(geminitest.Text(`I think pro`)), agent.DefaultFastModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// Two work turns and the recovery turn all use the routed model.
			srv, m := fake(t, tt.router,
				geminitest.Reply(geminitest.Call("echo", map[string]any{"text": "a"})),
				geminitest.Reply(geminitest.Text("forgot to finish")),
				geminitest.Reply(complete("ok")))
			evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, Agent: agent.Definition{Model: agent.ModelAuto}}, agent.Task{Prompt: "rename x"})
			var routed *agent.Routing
			for _, ev := range evs {
				if ev.Type == agent.EventModelRouted {
					routed = ev.Routed
				}
			}
			if routed == nil || routed.Model != tt.want || routed.Reason == "" {
				t.Fatalf("model_routed = %+v, want %s with a reason", routed, tt.want)
			}
			reqs := srv.Requests()
			if reqs[0].Model != agent.DefaultRouter.Classifier {
				t.Errorf("router call went to %s", reqs[0].Model)
			}
			var cfg struct {
				ResponseMIMEType string `json:"responseMimeType"`
			}
			json.Unmarshal(reqs[0].GenerationConfig, &cfg)
			if cfg.ResponseMIMEType != "application/json" {
				t.Errorf("router asked for %q", cfg.ResponseMIMEType)
			}
			for i, r := range reqs[1:] {
				if r.Model != tt.want {
					t.Errorf("call %d went to %s, want %s", i+1, r.Model, tt.want)
				}
			}
		})
	}
}

func TestContextStackInSystemPrompt(t *testing.T) {
	t.Parallel()
	srv, m := fake(t, geminitest.Reply(complete("ok")))
	cfg := agent.Config{
		Model:       m,
		Context:     []agent.ContextFile{{Path: "AGENTS.md", Content: "Use tabs."}, {Path: "svc/AGENTS.md", Content: "Never touch gen/."}},
		Environment: &agent.Environment{OS: "linux", Date: time.Date(2026, 11, 21, 0, 0, 0, 0, time.UTC), Folders: []string{"/ws"}},
		Agent:       agent.Definition{Instructions: "You are the main agent."},
		Skills:      []agent.SkillInfo{{Name: "release", Description: "Cut a release:\n tag and push."}},
	}
	collect(t, t.Context(), cfg, agent.Task{Prompt: "go", File: "svc/a.go"})
	sys := srv.Requests()[0].SystemInstruction.Parts[0].Text
	for _, want := range []string{"You are the main agent.", "<context file=\"AGENTS.md\">\nUse tabs.\n</context>",
		"# Skills\n", "call activate_skill with its name", "\n- release: Cut a release: tag and push.\n",
		"<context file=\"svc/AGENTS.md\">\nNever touch gen/.\n</context>", "Date: Saturday, 21 November 2026.", "OS: linux.", "Workspace folders: /ws."} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q:\n%s", want, sys)
		}
	}
	if i, j := strings.Index(sys, "AGENTS.md\">"), strings.Index(sys, "svc/AGENTS.md"); i > j {
		t.Error("context files out of order: the root's must come before the folder's")
	}
}

func TestBeforeComplete(t *testing.T) {
	t.Parallel()
	srv, m := fake(t,
		geminitest.Reply(complete("first try")),
		geminitest.Reply(complete("second try")))
	var seen []string
	cfg := agent.Config{Model: m, BeforeComplete: func(ctx context.Context, result string) (string, error) {
		seen = append(seen, result)
		if len(seen) == 1 {
			return "The user rejected your changes; revise them.", nil
		}
		return "", nil
	}}
	evs := collect(t, t.Context(), cfg, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal || got.Result != "second try" || got.Turns != 2 {
		t.Errorf("run end = %+v", got)
	}
	if diff := cmp.Diff([]string{"first try", "second try"}, seen); diff != "" {
		t.Errorf("hook saw (-want +got):\n%s", diff)
	}
	if !strings.Contains(string(srv.Requests()[1].Body), "The user rejected your changes") {
		t.Error("the feedback did not reach the model")
	}
}
