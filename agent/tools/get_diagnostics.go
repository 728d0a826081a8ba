package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

//go:embed get_diagnostics.md
var getDiagnosticsDoc string

type getDiagnosticsArgs struct {
	FilePath string `json:"file_path,omitempty" jsonschema:"the file whose problems to list; leave it out for every file with problems"`
}

// Limits of a diagnostics listing, so that a broken build does not fill the
// model's context.
const (
	maxDiagnosticFiles   = 10
	maxDiagnosticsInFile = 10
)

type getDiagnosticsTool struct {
	*agent.Func[getDiagnosticsArgs]
}

func getDiagnostics(st *state) agent.Tool {
	return getDiagnosticsTool{agent.NewFunc("get_diagnostics", getDiagnosticsDoc, func(ctx context.Context, call *agent.Call, a getDiagnosticsArgs) (agent.Result, error) {
		abs := ""
		if a.FilePath != "" {
			p, err := st.resolve("get_diagnostics", a.FilePath, reading)
			if err != nil {
				return agent.Errorf("%v", err), nil
			}
			abs = p
		}
		byFile := st.env.Diagnostics(abs)
		if len(byFile) == 0 {
			what := "any file"
			if abs != "" {
				what = st.env.FS.Rel(abs)
			}
			return agent.Result{Output: "The editor shows no problems in " + what + ".", Display: "No problems"}, nil
		}
		return agent.Result{Output: FormatDiagnostics(st.env.FS, byFile), Display: "Read the editor's problems"}, nil
	}).WithKind(agent.KindRead)}
}

func (getDiagnosticsTool) Describe(args json.RawMessage) string {
	var a getDiagnosticsArgs
	json.Unmarshal(args, &a)
	if a.FilePath == "" {
		return "Reading the editor's problems"
	}
	return describe("Reading the problems of", a.FilePath)
}

// FormatDiagnostics lists problems by file, for the model: errors first,
// each with its line and that line's text from fs, at most a few files and
// a few problems each, with what was left out counted.
func FormatDiagnostics(fs agent.FS, byFile map[string][]agent.Diagnostic) string {
	return formatDiagnostics(fs, byFile, maxDiagnosticFiles, maxDiagnosticsInFile)
}

func formatDiagnostics(fs agent.FS, byFile map[string][]agent.Diagnostic, maxFiles, maxInFile int) string {
	files := worstFirst(byFile)
	var b strings.Builder
	for i, path := range files {
		if i == maxFiles {
			fmt.Fprintf(&b, "(%s with problems not shown)\n", count(len(files)-i, "more file", "more files"))
			break
		}
		ds := bySeverity(byFile[path])
		var lines []string
		if text, err := fs.ReadFile(path); err == nil {
			lines = strings.Split(text, "\n")
		}
		fmt.Fprintf(&b, "%s:\n", fs.Rel(path))
		for j, d := range ds {
			if j == maxInFile {
				fmt.Fprintf(&b, "  (%d more not shown)\n", len(ds)-j)
				break
			}
			fmt.Fprintf(&b, "  line %d: %s", d.Line, cmp.Or(d.Severity, "problem"))
			b.WriteString(": " + problem(d) + "\n")
			if d.Line >= 1 && d.Line <= len(lines) {
				fmt.Fprintf(&b, "    %d | %s\n", d.Line, clip(strings.TrimRight(lines[d.Line-1], "\r"), maxShownLine))
			}
		}
	}
	return b.String()
}

// Limits of one problem's text: a linter's essay or a minified file's line
// must not fill the model's context.
const (
	maxShownMessage = 400
	maxShownLine    = 200
)

// problem is a diagnostic's message and source, as the model reads them.
func problem(d agent.Diagnostic) string {
	s := clip(strings.TrimSpace(d.Message), maxShownMessage)
	if d.Source != "" {
		s += " (" + d.Source + ")"
	}
	return s
}

// clip cuts s to at most n runes, marking the cut.
func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// worstFirst orders the files of byFile: those with errors first, then by
// path.
func worstFirst(byFile map[string][]agent.Diagnostic) []string {
	return slices.SortedFunc(maps.Keys(byFile), func(a, b string) int {
		return cmp.Or(cmp.Compare(worst(byFile[a]), worst(byFile[b])), cmp.Compare(a, b))
	})
}

// bySeverity orders ds: errors first, then by line.
func bySeverity(ds []agent.Diagnostic) []agent.Diagnostic {
	return slices.SortedStableFunc(slices.Values(ds), func(x, y agent.Diagnostic) int {
		return cmp.Or(cmp.Compare(rank(x.Severity), rank(y.Severity)), cmp.Compare(x.Line, y.Line))
	})
}

// rank orders severities: errors first.
func rank(severity string) int {
	switch severity {
	case "error":
		return 0
	case "warning":
		return 1
	case "info":
		return 2
	case "hint":
		return 3
	}
	return 4
}

// worst is the rank of the most severe problem of ds.
func worst(ds []agent.Diagnostic) int {
	r := rank("")
	for _, d := range ds {
		r = min(r, rank(d.Severity))
	}
	return r
}
