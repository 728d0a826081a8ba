package tools_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
)

// After an applied change, the model reads what the editor's diagnostics
// showed: new problems (errors first, with their lines' new text, a few per
// file and a few files), the ones the change cleared, that there were none,
// or that none came in time.
func TestDiagnosticsAfterChange(t *testing.T) {
	t.Parallel()
	const bNew = "package b\n\nfunc f() int { return y }\n"
	change := call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return y"})
	bEdit := edit{Path: "/ws/b.go", Name: "b.go", Added: 1, Deleted: 1}
	steps := []step{
		called("replace", "Editing b.go"),
		proposed("replace", bEdit),
		decided("replace", bEdit, agent.OutcomeApplied, ""),
		succeeded("replace", "Changed b.go (+1 \u22121)"),
	}
	bChange := agent.Change{Path: "/ws/b.go", Name: "b.go", Target: "/ws/b.go", Old: defaultFiles["/ws/b.go"], New: bNew, Tool: "replace"}
	after := func(da agent.DiagnosticsAfter) []answer {
		da.Wait = 2 * time.Second
		return []answer{{decision: agent.Decision{Outcome: agent.OutcomeApplied, Diagnostics: &da}}}
	}
	accepted := "The user accepted the change; b.go is updated (+1 \u22121).\n"
	var many []agent.Diagnostic
	for i := range 7 {
		many = append(many, agent.Diagnostic{Line: 1, Severity: "warning", Message: fmt.Sprintf("w%d", i)})
	}
	runCases(t, []toolCase{{
		name: "new problems, errors first",
		answers: after(agent.DiagnosticsAfter{InTime: true, New: map[string][]agent.Diagnostic{
			"/ws/a.txt": {{Line: 2, Severity: "warning", Message: "odd word"}},
			"/ws/b.go": {
				{Line: 3, Severity: "warning", Source: "vet", Message: "suspicious"},
				{Line: 3, Severity: "error", Source: "compiler", Message: "undefined: y"},
			},
		}}),
		call: change,
		want: output(accepted + "The editor shows new problems since the change:\n" +
			"b.go:\n" +
			"  line 3: error: undefined: y (compiler)\n    3 | func f() int { return y }\n" +
			"  line 3: warning: suspicious (vet)\n    3 | func f() int { return y }\n" +
			"a.txt:\n  line 2: warning: odd word\n    2 | beta"),
		steps:   steps,
		changes: []agent.Change{bChange},
	}, {
		name: "a few per file and a few files",
		answers: after(agent.DiagnosticsAfter{InTime: true, New: map[string][]agent.Diagnostic{
			"/ws/a.go": many, "/ws/b.go": many[:1], "/ws/c.go": many[:1], "/ws/d.go": many[:1],
		}}),
		call: change,
		want: output(accepted + "The editor shows new problems since the change:\n" +
			"a.go:\n  line 1: warning: w0\n  line 1: warning: w1\n  line 1: warning: w2\n  line 1: warning: w3\n  line 1: warning: w4\n  (2 more not shown)\n" +
			"b.go:\n  line 1: warning: w0\n    1 | package b\n" +
			"c.go:\n  line 1: warning: w0\n" +
			"(1 more file with problems not shown)"),
		steps:   steps,
		changes: []agent.Change{bChange},
	}, {
		name: "problems cleared",
		answers: after(agent.DiagnosticsAfter{InTime: true, Gone: map[string][]agent.Diagnostic{
			"/ws/b.go": {{Line: 3, Severity: "error", Source: "compiler", Message: "missing return"}},
		}}),
		call:    change,
		want:    output(accepted + "The editor no longer shows 1 problem:\n  b.go: error: missing return (compiler)"),
		steps:   steps,
		changes: []agent.Change{bChange},
	}, {
		name:    "nothing new",
		answers: after(agent.DiagnosticsAfter{InTime: true}),
		call:    change,
		want:    output(accepted + "The editor shows no new problems."),
		steps:   steps,
		changes: []agent.Change{bChange},
	}, {
		name:    "none in time",
		answers: after(agent.DiagnosticsAfter{}),
		call:    change,
		want:    output(accepted + "The editor had not reported the problems of the new text of b.go after 2s; call get_diagnostics later to see them."),
		steps:   steps,
		changes: []agent.Change{bChange},
	}})
}
