package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

func TestGetDiagnostics(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/ws/a.go":   "package a\n\nfunc f() { x := 1 }\n",
		"/ws/b.go":   "package a\n\nvar y = undefined\n",
		"/ws/c.go":   "package a\n",
		"/ws/.env":   "TOKEN=1\n",
		"/ws/big.go": "package a\n",
	}
	problems := map[string][]agent.Diagnostic{
		"/ws/a.go": {
			{Line: 3, Severity: "warning", Source: "staticcheck", Message: "x declared and not used"},
			{Line: 3, Severity: "error", Source: "compiler", Message: "declared and not used: x"},
		},
		"/ws/b.go": {{Line: 3, Severity: "error", Source: "compiler", Message: "undefined: undefined"}},
	}
	var many []agent.Diagnostic
	for i := range 12 {
		many = append(many, agent.Diagnostic{Line: 1, Severity: "hint", Message: fmt.Sprintf("hint %d", i)})
	}
	withDiags := func(m map[string][]agent.Diagnostic) func(*tools.Env) {
		return func(e *tools.Env) {
			e.Diagnostics = func(abs string) map[string][]agent.Diagnostic {
				if abs == "" {
					return m
				}
				if ds, ok := m[abs]; ok {
					return map[string][]agent.Diagnostic{abs: ds}
				}
				return nil
			}
		}
	}
	runCases(t, []toolCase{{
		name:  "every file, errors first",
		files: files,
		env:   withDiags(problems),
		call:  call("get_diagnostics", map[string]any{}),
		want: output("a.go:\n" +
			"  line 3: error: declared and not used: x (compiler)\n    3 | func f() { x := 1 }\n" +
			"  line 3: warning: x declared and not used (staticcheck)\n    3 | func f() { x := 1 }\n" +
			"b.go:\n  line 3: error: undefined: undefined (compiler)\n    3 | var y = undefined\n"),
		steps: []step{called("get_diagnostics", "Reading the editor's problems"), succeeded("get_diagnostics", "Read the editor's problems")},
	}, {
		name:  "one file",
		files: files,
		env:   withDiags(problems),
		call:  call("get_diagnostics", map[string]any{"file_path": "b.go"}),
		want:  output("b.go:\n  line 3: error: undefined: undefined (compiler)\n    3 | var y = undefined\n"),
		steps: []step{called("get_diagnostics", "Reading the problems of b.go"), succeeded("get_diagnostics", "Read the editor's problems")},
	}, {
		name:  "a file without problems",
		files: files,
		env:   withDiags(problems),
		call:  call("get_diagnostics", map[string]any{"file_path": "c.go"}),
		want:  output("The editor shows no problems in c.go."),
		steps: []step{called("get_diagnostics", "Reading the problems of c.go"), succeeded("get_diagnostics", "No problems")},
	}, {
		name:  "capped",
		files: files,
		env:   withDiags(map[string][]agent.Diagnostic{"/ws/big.go": many}),
		call:  call("get_diagnostics", map[string]any{"file_path": "big.go"}),
		want: output("big.go:\n" + func() string {
			s := ""
			for i := range 10 {
				s += fmt.Sprintf("  line 1: hint: hint %d\n    1 | package a\n", i)
			}
			return s + "  (2 more not shown)\n"
		}()),
		steps: []step{called("get_diagnostics", "Reading the problems of big.go"), succeeded("get_diagnostics", "Read the editor's problems")},
	}, {
		name:  "a line out of range, a linter's essay, a minified line",
		files: map[string]string{"/ws/min.js": "var a=1;" + strings.Repeat("x", 300) + "\n"},
		env: withDiags(map[string][]agent.Diagnostic{"/ws/min.js": {
			{Line: 1, Severity: "warning", Message: strings.Repeat("m", 500)},
			{Line: 99, Severity: "error", Message: "past the end"},
		}}),
		call: call("get_diagnostics", map[string]any{"file_path": "min.js"}),
		want: output("min.js:\n  line 99: error: past the end\n" +
			"  line 1: warning: " + strings.Repeat("m", 399) + "…\n    1 | var a=1;" + strings.Repeat("x", 191) + "…\n"),
		steps: []step{called("get_diagnostics", "Reading the problems of min.js"), succeeded("get_diagnostics", "Read the editor's problems")},
	}, {
		name:  "outside the workspace",
		files: files,
		env:   withDiags(problems),
		call:  call("get_diagnostics", map[string]any{"file_path": "../x.go"}),
		want:  toolErr("/x.go is outside the workspace"),
		steps: []step{called("get_diagnostics", "Reading the problems of ../x.go"), failed("get_diagnostics", "")},
	}})
}
