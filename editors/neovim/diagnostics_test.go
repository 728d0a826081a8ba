package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// The editor's diagnostics (set with vim.diagnostic.set, as a language
// server's are) reach the server: the model hears only the error its
// change added, and get_diagnostics lists everything the editor shows;
// agentls's own and a file outside the workspace are never sent.
func TestDiagnostics(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "diagnostics",
			files:  map[string]string{"main.go": "package main\n\nfunc main() {\n\tvar unused int\n\tprintln(\"hi\")\n}\n"},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go",
					"old_string": "func main() {\n\tvar unused int\n\tprintln(\"hi\")",
					"new_string": "// main greets.\nfunc main() {\n\tvar unused int\n\tprintln(greeting)"})),
				geminitest.Reply(geminitest.Call("get_diagnostics", map[string]any{})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "greeting is undefined."})),
			},
		}.run(t, nv)

		var sent []struct {
			URI         string `json:"uri"`
			Version     *int   `json:"version"`
			Diagnostics []struct {
				Range struct {
					Start struct{ Line, Character int }
				} `json:"range"`
				Severity int    `json:"severity"`
				Source   string `json:"source"`
				Message  string `json:"message"`
			} `json:"diagnostics"`
		}
		var before, version int
		s.res.get(t, "sent", &sent)
		s.res.get(t, "sent_before_run", &before)
		s.res.get(t, "version_after_edit", &version)
		if before != 1 {
			t.Errorf("%d lists sent before the run, want 1 (main.go's, debounced): %+v", before, sent)
		}
		var last bool
		for i, p := range sent {
			if !strings.HasSuffix(p.URI, "/main.go") {
				t.Errorf("sent a list for %s", p.URI)
			}
			for _, d := range p.Diagnostics {
				if strings.Contains(d.Message, "agentls own") || strings.Contains(d.Message, "outside") {
					t.Errorf("sent %+v", d)
				}
			}
			if i >= before && len(p.Diagnostics) == 2 {
				last = true
				if p.Version == nil || *p.Version != version {
					t.Errorf("the list after the edit has version %v, want the buffer's %d", p.Version, version)
				}
				if d := p.Diagnostics[1]; d.Range.Start.Line != 5 || d.Range.Start.Character != 9 || d.Severity != 1 || d.Message != "undefined: greeting" {
					t.Errorf("sent %+v", d)
				}
			}
		}
		if !last {
			t.Errorf("the list after the edit was not sent: %+v", sent)
		}

		replace := s.functionResponses(t, 1)
		if !strings.Contains(replace, `line 6: error: undefined: greeting (compiler)`) || !strings.Contains(replace, "println(greeting)") {
			t.Errorf("the model did not hear the new error: %s", replace)
		}
		for _, not := range []string{"declared and not used", "agentls own", "outside"} {
			if strings.Contains(replace, not) {
				t.Errorf("the model heard %q after its change: %s", not, replace)
			}
		}
		listed := s.functionResponses(t, 2)
		for _, want := range []string{"line 5: error: declared and not used: unused", "line 6: error: undefined: greeting"} {
			if !strings.Contains(listed, want) {
				t.Errorf("get_diagnostics lacks %q: %s", want, listed)
			}
		}
		for _, not := range []string{"agentls own", "outside"} {
			if strings.Contains(listed, not) {
				t.Errorf("get_diagnostics lists %q: %s", not, listed)
			}
		}
	})
}
