package lsp

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
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
