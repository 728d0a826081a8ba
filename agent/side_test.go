package agent_test

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// genConfig is the part of a request's generationConfig side calls set.
type genConfig struct {
	MaxOutputTokens int `json:"maxOutputTokens"`
	ThinkingConfig  *struct {
		ThinkingBudget *int   `json:"thinkingBudget"`
		ThinkingLevel  string `json:"thinkingLevel"`
	} `json:"thinkingConfig"`
}

func genConfigOf(t *testing.T, r geminitest.Request) genConfig {
	t.Helper()
	var c genConfig
	if err := json.Unmarshal(r.GenerationConfig, &c); err != nil {
		t.Fatalf("generationConfig %s: %v", r.GenerationConfig, err)
	}
	return c
}

// TestRouterThinkingPerFamily: the classifier call asks each model family
// for as little thinking as it takes, and leaves room for its answer.
func TestRouterThinkingPerFamily(t *testing.T) {
	t.Parallel()
	zero, least := 0, 128
	tests := []struct {
		classifier string
		level      string
		budget     *int
	}{
		{agent.DefaultClassifierModel, "LOW", nil},
		{"gemini-3.5-flash-lite", "LOW", nil},
		{"gemini-3.1-pro-preview", "LOW", nil},
		{"gemini-2.5-flash-lite", "", &zero},
		{"gemini-2.5-pro", "", &least},
	}
	for _, tt := range tests {
		t.Run(tt.classifier, func(t *testing.T) {
			t.Parallel()
			srv, m := fake(t,
				geminitest.Reply(geminitest.Text(`{"model":"fast","reason":"small"}`)),
				geminitest.Reply(complete("ok")))
			cfg := agent.Config{Model: m, Agent: agent.Definition{Model: agent.ModelAuto}, Router: agent.Router{Classifier: tt.classifier}}
			collect(t, t.Context(), cfg, agent.Task{Prompt: "rename x"})
			r := srv.Requests()[0]
			if r.Model != tt.classifier {
				t.Fatalf("the router called %s", r.Model)
			}
			c := genConfigOf(t, r)
			if c.ThinkingConfig == nil || c.ThinkingConfig.ThinkingLevel != tt.level || !cmp.Equal(c.ThinkingConfig.ThinkingBudget, tt.budget) {
				t.Errorf("thinking config %s, want level %q budget %v", r.GenerationConfig, tt.level, tt.budget)
			}
			if c.MaxOutputTokens < 4096 {
				t.Errorf("maxOutputTokens = %d: no room for thinking", c.MaxOutputTokens)
			}
		})
	}
}

// TestSideCallWithoutThinking: a model that refuses the side call's
// thinking settings is asked once more without them.
func TestSideCallWithoutThinking(t *testing.T) {
	t.Parallel()
	srv, m := fake(t,
		geminitest.Turn{Status: 400, ErrMessage: "Budget 0 is invalid. This model only works in thinking mode."},
		geminitest.Reply(geminitest.Text(`{"model":"strong","reason":"design"}`)),
		geminitest.Reply(complete("ok")))
	cfg := agent.Config{Model: m, Agent: agent.Definition{Model: agent.ModelAuto},
		Router: agent.Router{Classifier: "gemini-2.5-flash-lite", Fast: "my-fast", Strong: "my-strong"}}
	evs := collect(t, t.Context(), cfg, agent.Task{Prompt: "design x"})
	var routed *agent.Routing
	for _, ev := range evs {
		if ev.Type == agent.EventModelRouted {
			routed = ev.Routed
		}
	}
	if routed == nil || routed.Model != "my-strong" {
		t.Fatalf("routed = %+v, want my-strong", routed)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	if c := genConfigOf(t, reqs[0]); c.ThinkingConfig == nil {
		t.Error("the first call had no thinking settings")
	}
	if c := genConfigOf(t, reqs[1]); c.ThinkingConfig != nil {
		t.Errorf("the second call still has thinking settings: %s", reqs[1].GenerationConfig)
	}
	if reqs[2].Model != "my-strong" {
		t.Errorf("the run's call went to %s", reqs[2].Model)
	}
}

// TestRouterDefaults: an empty Router field takes the default's.
func TestRouterDefaults(t *testing.T) {
	t.Parallel()
	srv, m := fake(t,
		geminitest.Reply(geminitest.Text(`{"model":"fast","reason":"small"}`)),
		geminitest.Reply(complete("ok")))
	cfg := agent.Config{Model: m, Agent: agent.Definition{Model: agent.ModelAuto}, Router: agent.Router{Strong: "my-strong"}}
	collect(t, t.Context(), cfg, agent.Task{Prompt: "rename x"})
	reqs := srv.Requests()
	if reqs[0].Model != agent.DefaultClassifierModel || reqs[1].Model != agent.DefaultFastModel {
		t.Errorf("calls went to %s, %s; want the default classifier and fast model", reqs[0].Model, reqs[1].Model)
	}
}
