//go:build unix

package lsp_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// sameListing is n turns listing the same folder.
func sameListing(n int) []geminitest.Turn {
	var turns []geminitest.Turn
	for range n {
		turns = append(turns, geminitest.Reply(geminitest.Call("list_directory", map[string]any{"dir_path": "."})))
	}
	return turns
}

// The model repeats a call after a warning: the editor asks whether to
// keep going, or, with loopDetection off, nothing is asked.
func TestLoopQuestion(t *testing.T) {
	t.Parallel()
	const q = "agentls: The model has made the same tool call with the same arguments many times in a row. Keep going? [Keep going | Stop]"
	tests := []struct {
		name     string
		choose   string
		settings map[string]any
		turns    []geminitest.Turn
		asked    []string
		end      string // in the progress end
	}{
		{name: "stop", choose: "Stop", turns: sameListing(10), asked: []string{q}, end: "stopped (loop)"},
		{name: "keep going", choose: "Keep going", turns: append(sameListing(11), done()), asked: []string{q}, end: `"message":"done\n`},
		{name: "detection off", settings: map[string]any{"loopDetection": false}, turns: append(sameListing(11), done()), end: `"message":"done\n`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, tt.turns...)
			s.ed.ShowMessageRequest = lsptest.Choose(tt.choose)
			s.ed.Initialize(t.Context(), s.root, nil, tt.settings)
			end := runToEnd(t, s, "look around")
			if !strings.Contains(end, tt.end) {
				t.Errorf("progress end %s, want %s", end, tt.end)
			}
			if diff := cmp.Diff(tt.asked, s.ed.Questions()); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
		})
	}
}

// The router's models are settings.
func TestRouterSettings(t *testing.T) {
	t.Parallel()
	s := newSession(t, geminitest.Reply(geminitest.Text(`{"model":"strong","reason":"design"}`)), done())
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"model": "auto", "classifierModel": "my-classifier", "strongModel": "my-strong"})
	runToEnd(t, s, "design it")
	var models []string
	for _, r := range s.gem.Requests() {
		models = append(models, r.Model)
	}
	if diff := cmp.Diff([]string{"my-classifier", "my-strong"}, models); diff != "" {
		t.Errorf("models called (-want +got):\n%s", diff)
	}
}

// With no model setting, runs use the default model.
func TestDefaultModelSetting(t *testing.T) {
	t.Parallel()
	s := newSession(t, done())
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "go")
	if got := s.gem.Requests()[0].Model; got != agent.DefaultModel {
		t.Errorf("the run called %s, want %s", got, agent.DefaultModel)
	}
}
