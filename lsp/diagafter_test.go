package lsp

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// A problem is new when no problem with its severity, source and message
// was there before; among equal problems, lines moved by the edit decide
// which one is new.
func TestDiffProblems(t *testing.T) {
	t.Parallel()
	e := func(line int, msg string) agent.Diagnostic {
		return agent.Diagnostic{Line: line, Severity: "error", Source: "compiler", Message: msg}
	}
	const (
		old = "package a\n\nvar x = y\n\nvar z = w\n"
		// Two lines inserted above, and a new use of y below.
		new = "package a\n\nimport \"fmt\"\n\nvar x = y\n\nvar z = w\nvar v = y\n"
	)
	tests := []struct {
		name          string
		before, after []agent.Diagnostic
		added, gone   []agent.Diagnostic
	}{{
		name:   "moved down, nothing new",
		before: []agent.Diagnostic{e(3, "undefined: y"), e(5, "undefined: w")},
		after:  []agent.Diagnostic{e(5, "undefined: y"), e(7, "undefined: w")},
	}, {
		name:   "a second equal problem: the one the lines do not explain is new",
		before: []agent.Diagnostic{e(3, "undefined: y")},
		after:  []agent.Diagnostic{e(8, "undefined: y"), e(5, "undefined: y")},
		added:  []agent.Diagnostic{e(8, "undefined: y")},
	}, {
		name:   "the old line moved through the edit decides, not the old line",
		before: []agent.Diagnostic{e(3, "undefined: y")},
		after:  []agent.Diagnostic{e(2, "undefined: y"), e(5, "undefined: y")},
		added:  []agent.Diagnostic{e(2, "undefined: y")},
	}, {
		name:   "fixed",
		before: []agent.Diagnostic{e(3, "undefined: y"), e(5, "undefined: w")},
		after:  []agent.Diagnostic{e(5, "undefined: y")},
		gone:   []agent.Diagnostic{e(5, "undefined: w")},
	}, {
		name:   "same message, other severity or source: new",
		before: []agent.Diagnostic{e(3, "undefined: y")},
		after: []agent.Diagnostic{e(5, "undefined: y"), {Line: 5, Severity: "warning", Source: "compiler", Message: "undefined: y"},
			{Line: 5, Severity: "error", Source: "vet", Message: "undefined: y"}},
		added: []agent.Diagnostic{{Line: 5, Severity: "warning", Source: "compiler", Message: "undefined: y"},
			{Line: 5, Severity: "error", Source: "vet", Message: "undefined: y"}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			added, gone := diffProblems(tt.before, tt.after, edits.LineMap(old, new))
			if diff := cmp.Diff(tt.added, added); diff != "" {
				t.Errorf("added (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.gone, gone); diff != "" {
				t.Errorf("gone (-want +got):\n%s", diff)
			}
		})
	}
}
