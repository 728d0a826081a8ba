package emacs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// Emacs eglot (Debian's emacs-nox and elpa-eglot 1.9) with the configuration
// of docs/editors.md and nothing else: a code action starts a run, the
// server asks with window/showMessageRequest (eglot declares no change
// annotations), eglot applies the edit and answers applied:true but sends
// its didChange only from an idle timer (which never fires in batch
// Emacs). The model must hear exactly what the user decided.

const emacsTimeout = 120 * time.Second

var (
	agentlsBin string
	buildErr   error
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	os.ReadFile("eglot-test.el") // Go's test cache: rerun when the script changes
	if _, err := exec.LookPath("emacs"); err != nil && os.Getenv("AGENTLS_TEST_BIN") == "" {
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "agentls-eglot-test-")
	if err != nil {
		buildErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	agentlsBin, buildErr = lsptest.BuildServer(dir)
	return m.Run()
}

// emacsPath returns emacs's path; without emacs and eglot the test skips,
// or fails when AGENTLS_REQUIRE_EGLOT=1 (CI).
func emacsPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("emacs")
	if err == nil {
		err = exec.Command(path, "--batch", "-q", "--eval", "(require 'eglot)").Run()
	}
	if err != nil {
		if os.Getenv("AGENTLS_REQUIRE_EGLOT") == "1" {
			t.Fatalf("emacs with eglot is needed, and AGENTLS_REQUIRE_EGLOT=1: %v", err)
		}
		t.Skipf("no emacs with eglot: %v", err)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return path
}

// An eglotRun is one Emacs session: a code action on lines of main.py.
type eglotRun struct {
	files   map[string]string
	turns   []geminitest.Turn
	action  string   // the code action's title
	lines   [2]int   // 1-based
	answers []string // the user's answers in order: the server's questions, then eglot's y-or-n-p ("y"/"n")
}

// eglotResult is what eglot-test.el saw.
type eglotResult struct {
	OK        bool   `json:"ok"`
	Error     string `json:"error"`
	Questions []struct {
		Message string   `json:"message"`
		Actions []string `json:"actions"`
	} `json:"questions"`
	Confirms []string          `json:"confirms"`
	Messages []string          `json:"messages"`
	Left     []string          `json:"left"`
	Buffer   string            `json:"buffer"`
	Modified bool              `json:"modified"`
	Files    map[string]string `json:"files"`
}

type eglotSession struct {
	res eglotResult
	srv *geminitest.Server
	ws  string
	out string
}

func (e eglotRun) run(t *testing.T) *eglotSession {
	t.Helper()
	emacs := emacsPath(t)
	srv := geminitest.NewServer(t, e.turns...)
	ws, tmp := t.TempDir(), t.TempDir()
	for name, text := range e.files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	script, err := filepath.Abs("eglot-test.el")
	if err != nil {
		t.Fatal(err)
	}
	plan, _ := json.Marshal(map[string]any{"action": e.action, "lines": e.lines, "answers": e.answers})
	out := filepath.Join(tmp, "result.json")
	ctx, cancel := context.WithTimeout(t.Context(), emacsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-q", "-l", script)
	cmd.Dir = ws
	cmd.Env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"),
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"AGENTLS_BIN=" + agentlsBin,
		"AGENTLS_TEST_PLAN=" + string(plan),
		"AGENTLS_TEST_OUT=" + out,
	}
	cmd.WaitDelay = 5 * time.Second
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	runErr := cmd.Run()
	s := &eglotSession{srv: srv, ws: ws, out: output.String()}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("emacs: %v; no result: %v\n%s", runErr, err, s.out)
	}
	if err := json.Unmarshal(raw, &s.res); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if !s.res.OK || runErr != nil {
		t.Fatalf("emacs (%v): %s\n%s", runErr, s.res.Error, s.out)
	}
	if len(s.res.Left) != 0 {
		t.Errorf("answers never asked for: %q", s.res.Left)
	}
	return s
}

// told returns the function responses the model received in call n (from 0).
func (s *eglotSession) told(t *testing.T, n int) string {
	t.Helper()
	var calls []geminitest.Request
	for _, r := range s.srv.Requests() {
		if r.RPC == "streamGenerateContent" || r.RPC == "generateContent" {
			calls = append(calls, r)
		}
	}
	if len(calls) <= n {
		t.Fatalf("the model was called %d times, want at least %d\n%s", len(calls), n+1, s.out)
	}
	contents := calls[n].Contents
	var out []string
	for _, p := range contents[len(contents)-1].Parts {
		if p.FunctionResponse != nil {
			b, _ := json.Marshal(p.FunctionResponse.Response)
			out = append(out, string(b))
		}
	}
	return strings.Join(out, "\n")
}

const helloPy = "def hello():\n    return \"hi\"\n"

const helloDocumented = "def hello():\n    \"\"\"Say hi.\"\"\"\n    return \"hi\"\n"

func documentTurn() geminitest.Turn {
	return geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.py",
		"old_string": "def hello():\n", "new_string": "def hello():\n    \"\"\"Say hi.\"\"\"\n"}))
}

// Apply: the diff is in the question; eglot applies the edit and answers
// applied:true, its didChange never comes (batch Emacs runs no idle
// timer): the model hears that the change was accepted, not that it
// failed. The buffer is unsaved, and the shell command's approval and
// result say so.
func TestEglotApply(t *testing.T) {
	t.Parallel()
	s := eglotRun{
		files: map[string]string{"main.py": helloPy},
		turns: []geminitest.Turn{
			documentTurn(),
			geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "cat main.py"})),
			geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Documented hello."})),
		},
		action: "Agent: Add documentation", lines: [2]int{1, 2},
		answers: []string{"Apply", "Allow once"},
	}.run(t)
	r := s.res
	if len(r.Questions) != 2 {
		t.Fatalf("questions: %+v", r.Questions)
	}
	if q := r.Questions[0]; !strings.Contains(q.Message, "agentls wants to change main.py") || !strings.Contains(q.Message, `+    """Say hi."""`) ||
		strings.Join(q.Actions, "|") != "Apply|Reject" {
		t.Errorf("the question: %+v", q)
	}
	if r.Buffer != helloDocumented || !r.Modified || len(r.Confirms) != 0 {
		t.Errorf("modified %v, eglot asked %q, buffer:\n%s", r.Modified, r.Confirms, r.Buffer)
	}
	if resp := s.told(t, 1); !strings.Contains(resp, "The user accepted the change; main.py is updated") {
		t.Errorf("the model was told %s", resp)
	}
	if a := r.Questions[1]; !strings.Contains(a.Message, "Run `cat main.py`") || !strings.Contains(a.Message, "Unsaved in the editor, not seen by the command: main.py") {
		t.Errorf("the approval: %+v", a)
	}
	if resp := s.told(t, 2); !strings.Contains(resp, "Unsaved in the editor, not seen by the command (it read them from disk): main.py") {
		t.Errorf("the shell command's result: %s", resp)
	}
}

// Reject: nothing is sent to eglot, and the model hears the No.
func TestEglotReject(t *testing.T) {
	t.Parallel()
	s := eglotRun{
		files: map[string]string{"main.py": helloPy},
		turns: []geminitest.Turn{
			documentTurn(),
			geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "The user said no."})),
		},
		action: "Agent: Add documentation", lines: [2]int{1, 2},
		answers: []string{"Reject"},
	}.run(t)
	if s.res.Buffer != helloPy || s.res.Modified {
		t.Errorf("modified %v, buffer:\n%s", s.res.Modified, s.res.Buffer)
	}
	if resp := s.told(t, 1); !strings.Contains(resp, "The user rejected the change to main.py") {
		t.Errorf("the model was told %s", resp)
	}
}

// A file Emacs has not visited: eglot asks its own y-or-n-p even with
// eglot-confirm-server-initiated-edits nil (docs/editors.md says so). The
// test answers both questions; a No to eglot's is a rejection too.
func TestEglotUnvisitedFile(t *testing.T) {
	t.Parallel()
	for _, yes := range []bool{true, false} {
		t.Run(fmt.Sprintf("y=%v", yes), func(t *testing.T) {
			t.Parallel()
			answer := map[bool]string{true: "y", false: "n"}[yes]
			s := eglotRun{
				files: map[string]string{"main.py": helloPy, "util.py": "def util():\n    pass\n"},
				turns: []geminitest.Turn{
					geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "util.py",
						"old_string": "    pass\n", "new_string": "    return 1\n"})),
					geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Done."})),
				},
				action: "Agent: Add documentation", lines: [2]int{1, 2},
				answers: []string{"Apply", answer},
			}.run(t)
			if len(s.res.Confirms) != 1 || !strings.Contains(s.res.Confirms[0], "Server wants to edit") || !strings.Contains(s.res.Confirms[0], "util.py") {
				t.Errorf("eglot asked %q", s.res.Confirms)
			}
			resp := s.told(t, 1)
			if yes {
				if s.res.Files["util.py"] != "def util():\n    return 1\n" || !strings.Contains(resp, "The user accepted the change; util.py is updated") {
					t.Errorf("util.py in Emacs %q; the model was told %s", s.res.Files["util.py"], resp)
				}
			} else if !strings.Contains(resp, "The user rejected the change to util.py") || !strings.Contains(resp, "User cancelled server edit") {
				t.Errorf("the model was told %s", resp)
			}
		})
	}
}
