package lsp_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/workspace"
)

func diagnostic(line uint32, sev protocol.DiagnosticSeverity, msg string) protocol.Diagnostic {
	d := protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line, Character: 1}},
		Message: protocol.String(msg)}
	d.Severity = sev
	d.Source = protocol.NewOptional("compiler")
	return d
}

func ptr[T any](v T) *T { return &v }

// A plugin's diagnostics reach the model through get_diagnostics: the latest
// list per document, errors first, with the line's text; a list for an older
// version than the buffer, and one for a file outside the workspace, are
// ignored; a flood of lists leaves the latest; without the setting and
// without diagnostics in the command, the tool is not offered.
func TestGetDiagnosticsFromThePlugin(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t,
		geminitest.Reply(geminitest.Call("get_diagnostics", map[string]any{})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "seen"})))
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"diagnostics": true})
	main := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	s.ed.Type(ctx, main, mainGo+"\nvar x = y\n") // version 2
	for i := range 2000 {
		s.ed.Diagnostics(ctx, main, ptr(int32(2)), []protocol.Diagnostic{diagnostic(2, protocol.DiagnosticSeverityWarning, fmt.Sprintf("flood %d", i))})
	}
	s.ed.Diagnostics(ctx, main, ptr(int32(2)), []protocol.Diagnostic{
		diagnostic(10, protocol.DiagnosticSeverityWarning, "x is unused"),
		diagnostic(10, protocol.DiagnosticSeverityError, "undefined: y"),
	})
	s.ed.Diagnostics(ctx, main, ptr(int32(1)), []protocol.Diagnostic{diagnostic(0, protocol.DiagnosticSeverityError, "stale")})
	s.ed.Diagnostics(ctx, workspace.URIFromPath(filepath.Join(t.TempDir(), "other.go")), nil,
		[]protocol.Diagnostic{diagnostic(0, protocol.DiagnosticSeverityError, "outside")})
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "fix the build"}); err != nil {
		t.Fatal(err)
	}
	s.ed.ProgressEnd()
	reqs := s.gem.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	got := lastFunctionResponse(t, reqs[1])
	want := "main.go:\\n  line 11: error: undefined: y (compiler)\\n    11 | var x = y\\n  line 11: warning: x is unused (compiler)\\n    11 | var x = y\\n"
	if !strings.Contains(got, want) {
		t.Errorf("get_diagnostics told the model %s, want %s", got, want)
	}
	for _, bad := range []string{"stale", "outside", "flood"} {
		if strings.Contains(got, bad) {
			t.Errorf("get_diagnostics reports the %s list: %s", bad, got)
		}
	}
}

func TestGetDiagnosticsOfferedOnlyWithDiagnostics(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t, geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "ok"})))
	s.ed.Initialize(ctx, s.root, nil, nil)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "hi"}); err != nil {
		t.Fatal(err)
	}
	s.ed.ProgressEnd()
	for _, d := range s.gem.Requests()[0].Tools[0].FunctionDeclarations {
		if d.Name == "get_diagnostics" {
			t.Error("get_diagnostics is offered to a client that sends no diagnostics")
		}
	}
}

// A workspace folder the client names through a symlink: the diagnostics it
// sends under that name are the ones get_diagnostics finds for the file.
func TestGetDiagnosticsThroughALinkedFolder(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t,
		geminitest.Reply(geminitest.Call("get_diagnostics", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "seen"})))
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(s.root, link); err != nil {
		t.Skip(err)
	}
	s.ed.Initialize(ctx, link, nil, map[string]any{"diagnostics": true})
	main := s.ed.Open(ctx, filepath.Join(link, "main.go"), mainGo)
	s.ed.Diagnostics(ctx, main, ptr(int32(1)), []protocol.Diagnostic{diagnostic(0, protocol.DiagnosticSeverityError, "linked")})
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "fix the build"}); err != nil {
		t.Fatal(err)
	}
	s.ed.ProgressEnd()
	if got := lastFunctionResponse(t, s.gem.Requests()[1]); !strings.Contains(got, "error: linked (compiler)") {
		t.Errorf("get_diagnostics told the model %s", got)
	}
}
