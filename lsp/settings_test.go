package lsp

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
)

func TestSettingsMerge(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	p1 := s.Merge(json.RawMessage(`{"agentls": {"confirm": "run", "maxTurns": 0, "mode": "x"}}`))
	p2 := s.Merge(json.RawMessage(`{"maxTurns": 7, "events": "yes", "customActions": [{"title": "T", "prompt": "P ${selection}"}]}`))
	want := DefaultSettings()
	want.Confirm, want.MaxTurns = "run", 7
	want.CustomActions = []CustomAction{{Title: "T", Prompt: "P ${selection}"}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	wantProblems := []string{`maxTurns: must be positive, not 0`, `unknown setting "mode"`, `events: wrong type ("yes")`}
	if diff := cmp.Diff(wantProblems, append(p1, p2...)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	v := templateVars{selection: "x := 1", file: "a.go", diagnostics: "unused x"}
	got := expand("In ${file}, ${instruction}: ${selection} (${diagnostics}) ${other}", v)
	if want := "In a.go, make it simpler and clearer: x := 1 (unused x) ${other}"; got != want {
		t.Errorf("expand = %q, want %q", got, want)
	}
}

func TestFirstLines(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"one", "one"},
		{"a\n\nb\n\nc\n\nd", "a\nb\nc…"},
		{"a\nb", "a\nb"},
		{"abcdefghij", "abcd…"},
	}
	for _, tt := range tests {
		if got := firstLines(tt.in, 3, 5); got != tt.want {
			t.Errorf("firstLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestModelSettings(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	if s.Model != agent.DefaultModel || s.FastModel != agent.DefaultFastModel || s.StrongModel != agent.DefaultStrongModel ||
		s.ClassifierModel != agent.DefaultClassifierModel || !s.LoopDetection {
		t.Errorf("defaults = %+v", s)
	}
	problems := s.Merge(json.RawMessage(`{"fastModel": "f", "strongModel": "auto", "classifierModel": "", "loopDetection": false}`))
	if s.FastModel != "f" || s.StrongModel != agent.DefaultStrongModel || s.ClassifierModel != agent.DefaultClassifierModel || s.LoopDetection {
		t.Errorf("merged = %+v", s)
	}
	want := []string{`classifierModel: must not be empty`, `strongModel: must name a model, not "auto"`}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestRetryProgress(t *testing.T) {
	t.Parallel()
	ev := agent.Event{Type: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 2, Delay: 11500 * time.Millisecond, Reason: "model overloaded"}}
	if got := reportMessage(ev, false); got != "model overloaded, retrying in 12 s" {
		t.Errorf("progress = %q", got)
	}
}
