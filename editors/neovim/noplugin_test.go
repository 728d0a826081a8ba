package neovim_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// agentls without the plugin, on Neovim's own LSP client configured as
// docs/editors.md says (tests/noplugin.lua): every change is asked first
// with the server's own question (0.7 applies edits silently; 0.12's own
// confirmation answers applied for No), the diff is where the question is,
// and what the model hears is what the user decided.

// noPlugin is one run started from a code action on lines of main.go.
type noPlugin struct {
	files   map[string]string
	turns   []geminitest.Turn
	action  string   // the code action's title
	lines   [2]int   // the selection, 1-based lines
	answers []string // the user's answers, in order
}

// noPluginResult is what tests/noplugin.lua saw.
type noPluginResult struct {
	Questions []struct {
		Message string   `json:"message"`
		Actions []string `json:"actions"`
	} `json:"questions"`
	ApplyEdits int      `json:"apply_edits"`
	Shown      []string `json:"shown"`
	Messages   []string `json:"messages"`
	Buffer     string   `json:"buffer"`
	Modified   bool     `json:"modified"`
	Left       []string `json:"left"`
}

func (np noPlugin) run(t *testing.T, nv neovim) (*session, noPluginResult) {
	t.Helper()
	plan, _ := json.Marshal(map[string]any{"action": np.action, "lines": np.lines, "answers": np.answers})
	files := map[string]string{".git/HEAD": "ref: refs/heads/main\n"}
	for k, v := range np.files {
		files[k] = v
	}
	s := scenario{script: "noplugin", files: files, turns: np.turns, env: []string{"AGENTLS_TEST_PLAN=" + string(plan)}}.run(t, nv)
	var res noPluginResult
	raw, _ := json.Marshal(s.res.Extra)
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Left) != 0 {
		t.Errorf("answers never asked for: %q", res.Left)
	}
	return s, res
}

const helloGo = "package main\n\nfunc Hello() string { return \"hi\" }\n"

const helloDocumented = "package main\n\n// Hello says hi.\nfunc Hello() string { return \"hi\" }\n"

// documentTurns add a doc comment, run a shell command and end.
func documentTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "func Hello()",
			"new_string": "// Hello says hi.\nfunc Hello()"})),
		geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "cat main.go"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Documented Hello."})),
	}
}

// Apply: the short diff is in the question; Neovim's own handler applies
// the edit, leaves the buffer unsaved, and the shell command's approval
// and result say so.
func TestNoPluginApply(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s, res := noPlugin{
			files: map[string]string{"main.go": helloGo}, turns: documentTurns(),
			action: "Agent: Add documentation", lines: [2]int{3, 3},
			answers: []string{"Apply", "Allow once"},
		}.run(t, nv)
		if len(res.Questions) != 2 {
			t.Fatalf("questions: %+v", res.Questions)
		}
		q := res.Questions[0]
		if !strings.Contains(q.Message, "agentls wants to change main.go") || !strings.Contains(q.Message, "+// Hello says hi.") ||
			strings.Join(q.Actions, "|") != "Apply|Reject" {
			t.Errorf("the question: %+v", q)
		}
		if res.ApplyEdits != 1 || res.Buffer != helloDocumented || !res.Modified {
			t.Errorf("%d edits, modified %v, buffer:\n%s", res.ApplyEdits, res.Modified, res.Buffer)
		}
		if !strings.Contains(functionResponses(t, s.srv, 1, s.logs), "The user accepted the change") {
			t.Errorf("the model was told %s", functionResponses(t, s.srv, 1, s.logs))
		}
		if a := res.Questions[1]; !strings.Contains(a.Message, "Run `cat main.go`") || !strings.Contains(a.Message, "Unsaved in the editor, not seen by the command: main.go") {
			t.Errorf("the approval: %+v", a)
		}
		if resp := functionResponses(t, s.srv, 2, s.logs); !strings.Contains(resp, "Unsaved in the editor, not seen by the command (it read them from disk): main.go") ||
			strings.Contains(resp, "Hello says hi") {
			t.Errorf("the shell command's result: %s", resp)
		}
	})
}

// Reject: no edit reaches Neovim (0.12's own confirmation would have
// answered applied), and the model hears the No.
func TestNoPluginReject(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s, res := noPlugin{
			files: map[string]string{"main.go": helloGo},
			turns: []geminitest.Turn{documentTurns()[0],
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "The user said no."}))},
			action: "Agent: Add documentation", lines: [2]int{3, 3},
			answers: []string{"Reject"},
		}.run(t, nv)
		if res.ApplyEdits != 0 || res.Buffer != helloGo || res.Modified {
			t.Errorf("%d edits sent, modified %v, buffer:\n%s", res.ApplyEdits, res.Modified, res.Buffer)
		}
		if resp := functionResponses(t, s.srv, 1, s.logs); !strings.Contains(resp, "The user rejected the change to main.go") {
			t.Errorf("the model was told %s", resp)
		}
	})
}

// Show diff, for a diff too long for the question: 0.12 opens it with
// window/showDocument (since 0.8); 0.7 cannot, and gets it as a warning
// message it shows, and the path. The question asked again says where.
func TestNoPluginShowDiff(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		var src, want strings.Builder
		src.WriteString("package main\n\n")
		want.WriteString("package main\n\n")
		for i := range 6 {
			for range 8 {
				src.WriteString("// filler\n")
				want.WriteString("// filler\n")
			}
			src.WriteString("func use" + string(rune('a'+i)) + "() string { return Hello() }\n")
			want.WriteString("func use" + string(rune('a'+i)) + "() string { return Greet() }\n")
		}
		src.WriteString("func Hello() string { return \"hi\" }\n")
		want.WriteString("func Greet() string { return \"hi\" }\n")
		s, res := noPlugin{
			files: map[string]string{"main.go": src.String()},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello()",
					"new_string": "Greet()", "expected_replacements": 7})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Renamed."})),
			},
			action: "Agent: Refactor selection", lines: [2]int{3, 50},
			answers: []string{"Show diff", "Apply"},
		}.run(t, nv)
		if len(res.Questions) != 2 || strings.Join(res.Questions[0].Actions, "|") != "Apply|Reject|Show diff" {
			t.Fatalf("questions: %+v", res.Questions)
		}
		again := res.Questions[1].Message
		if nv.atLeast(0, 8) {
			if len(res.Shown) != 1 || !strings.HasSuffix(res.Shown[0], ".diff") || !strings.Contains(again, "(The diff is open in the editor.)") {
				t.Errorf("shown %q; asked again: %q", res.Shown, again)
			}
		} else {
			if !strings.Contains(strings.Join(res.Messages, "\n"), "-func usea() string { return Hello() }") ||
				!strings.Contains(again, "(The diff is in the message above and in ") {
				t.Errorf("messages %q; asked again: %q", res.Messages, again)
			}
		}
		if res.ApplyEdits != 1 || res.Buffer != want.String() {
			t.Errorf("%d edits; buffer:\n%s", res.ApplyEdits, res.Buffer)
		}
		if resp := functionResponses(t, s.srv, 1, s.logs); !strings.Contains(resp, "The user accepted the change") {
			t.Errorf("the model was told %s", resp)
		}
	})
}
