package neovim_test

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
)

// The headless Neovim tests: the plugin (this directory on 'runtimepath')
// drives the real agentls binary, which talks to the fake Gemini server
// through the real genai SDK. Each scenario is a Lua script in tests/ that
// writes what it saw as JSON; the Go side checks it, the file on disk and
// what the model was told.

const nvimTimeout = 60 * time.Second

var (
	agentlsBin string // the binary under test
	buildErr   error  // why it could not be built
)

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	if _, err := exec.LookPath("nvim"); err != nil {
		return m.Run() // the tests skip (or fail under AGENTLS_REQUIRE_NVIM=1)
	}
	if bin := os.Getenv("AGENTLS_TEST_BIN"); bin != "" {
		// A prebuilt binary, for working on the plugin alone.
		agentlsBin = bin
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "agentls-nvim-test-")
	if err != nil {
		buildErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	agentlsBin = filepath.Join(dir, "agentls")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	cmd := exec.Command(goCmd, "build", "-o", agentlsBin, "github.com/agentls/agentls/cmd/agentls")
	if out, err := cmd.CombinedOutput(); err != nil {
		buildErr = fmt.Errorf("go build github.com/agentls/agentls/cmd/agentls: %v\n%s", err, out)
	}
	return m.Run()
}

// nvimPath returns nvim's path; without nvim the test skips, or fails when
// AGENTLS_REQUIRE_NVIM=1 (CI).
func nvimPath(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("nvim")
	if err != nil {
		if os.Getenv("AGENTLS_REQUIRE_NVIM") == "1" {
			t.Fatalf("nvim is not on PATH, and AGENTLS_REQUIRE_NVIM=1: %v", err)
		}
		t.Skipf("nvim is not on PATH: %v", err)
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return path
}

// result is what a scenario script wrote (tests/helper.lua); scenario
// specific values are in Extra.
type result struct {
	OK       bool          `json:"ok"`
	Error    string        `json:"error"`
	Answers  []applyAnswer `json:"answers"`
	Events   []event       `json:"events"`
	Progress []progress    `json:"progress"`
	Log      []string      `json:"log"`
	Runs     []runInfo     `json:"runs"`
	Pending  int           `json:"pending"`
	Buffer   string        `json:"buffer"`
	Preview  preview       `json:"preview"`

	Extra map[string]json.RawMessage `json:"-"`
}

type applyAnswer struct {
	Applied       bool    `json:"applied"`
	FailureReason *string `json:"failureReason"`
	Cancelled     string  `json:"cancelled"`
	Agentls       *struct {
		Files []struct {
			URI           string `json:"uri"`
			Text          string `json:"text"`
			RejectedHunks []int  `json:"rejectedHunks"`
			EditedHunks   []int  `json:"editedHunks"`
		} `json:"files"`
	} `json:"agentls"`
}

type event struct {
	Seq   int    `json:"seq"`
	Type  string `json:"type"`
	RunID string `json:"runId"`
}

type progress struct {
	Token   string `json:"token"`
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

type runInfo struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Reason string `json:"reason"`
	Result string `json:"result"`
}

type preview struct {
	Deleted []int    `json:"deleted"`
	Added   []string `json:"added"`
	AddedHL []string `json:"added_hl"`
	Headers []string `json:"headers"`
}

// get decodes the scenario value key into v.
func (r *result) get(t *testing.T, key string, v any) {
	t.Helper()
	raw, ok := r.Extra[key]
	if !ok {
		t.Fatalf("the script reported no %q", key)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s = %s: %v", key, raw, err)
	}
}

// scenario is one headless Neovim session.
type scenario struct {
	script string            // tests/<script>.lua
	files  map[string]string // the workspace
	turns  []geminitest.Turn // the model's script
}

type session struct {
	res  *result
	srv  *geminitest.Server
	ws   string
	logs string // nvim's output and the LSP log, for failures
}

func (s scenario) run(t *testing.T) *session {
	t.Helper()
	nvim := nvimPath(t)
	srv := geminitest.NewServer(t, s.turns...)
	ws, tmp := t.TempDir(), t.TempDir()
	for name, text := range s.files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(pluginDir, "tests", s.script+".lua")
	out := filepath.Join(tmp, "result.json")
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"),
		"XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"TMPDIR=" + tmp,
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + srv.URL,
		"AGENTLS_BIN=" + agentlsBin,
		"AGENTLS_TEST_OUT=" + out,
		"AGENTLS_TEST_LSP_LOG=" + os.Getenv("AGENTLS_TEST_LSP_LOG"),
	}
	ctx, cancel := context.WithTimeout(t.Context(), nvimTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nvim, "--headless", "-u", "NONE", "-i", "NONE",
		"--cmd", "set rtp+="+vimEscape(pluginDir),
		"-c", "luafile "+vimEscape(script))
	cmd.Dir = ws
	cmd.Env = env
	cmd.WaitDelay = 5 * time.Second
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("nvim ran %s", time.Since(start).Round(time.Millisecond))

	sess := &session{srv: srv, ws: ws, logs: "nvim output:\n" + output.String()}
	for _, p := range []string{"cache/nvim/lsp.log", "state/nvim/lsp.log"} {
		if b, err := os.ReadFile(filepath.Join(tmp, p)); err == nil {
			sess.logs += "\n" + p + ":\n" + string(b)
		}
	}
	if ctx.Err() != nil {
		t.Fatalf("nvim did not finish within %s\n%s", nvimTimeout, sess.logs)
	}
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("nvim: %v; no result: %v\n%s", runErr, err, sess.logs)
	}
	res := &result{}
	if err := json.Unmarshal(raw, res); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if err := json.Unmarshal(raw, &res.Extra); err != nil {
		t.Fatal(err)
	}
	sess.res = res
	if os.Getenv("AGENTLS_TEST_DUMP") != "" {
		t.Logf("result: %s\n%s", raw, sess.logs)
	}
	if !res.OK || runErr != nil {
		t.Fatalf("scenario %s failed (nvim: %v): %s\n%s", s.script, runErr, res.Error, sess.logs)
	}
	return sess
}

// vimEscape escapes a path for an Ex command line.
func vimEscape(p string) string {
	return strings.NewReplacer(`\`, `\\`, " ", `\ `, "|", `\|`, `"`, `\"`).Replace(p)
}

// disk returns a workspace file's content on disk.
func (s *session) disk(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.ws, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// modelCalls returns the generate requests the model received.
func (s *session) modelCalls() []geminitest.Request {
	var out []geminitest.Request
	for _, r := range s.srv.Requests() {
		if r.RPC == "streamGenerateContent" || r.RPC == "generateContent" {
			out = append(out, r)
		}
	}
	return out
}

// functionResponses returns the JSON of the function responses in the last
// content of the model's call n (from 0).
func (s *session) functionResponses(t *testing.T, n int) string {
	t.Helper()
	calls := s.modelCalls()
	if len(calls) <= n {
		t.Fatalf("the model was called %d times, want at least %d\n%s", len(calls), n+1, s.logs)
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

func (s *session) sawEvent(typ string) bool {
	for _, e := range s.res.Events {
		if e.Type == typ {
			return true
		}
	}
	return false
}

const mainGo = `package main

import "fmt"

func Hello() string { return "hi" }

func main() {
	fmt.Println("héllo 日本 😀", Hello())
}
`

const mainGoRenamed = `// edited in the buffer
package main

import "fmt"

func Greet() string { return "hi" }

func main() {
	fmt.Println("héllo 日本 😀", Greet())
}
`

func renameTurns(result string) []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(
			geminitest.Thought("**Reading main.go**\n\nI need to see the file first."),
			geminitest.Call("read_file", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(
			geminitest.Thought("**Renaming Hello**\n\nThe declaration and the call both change."),
			geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello()",
				"new_string": "Greet()", "expected_replacements": 2})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": result})),
	}
}

// longGo is a 40-line file that calls Hello on line 3 and line 30.
func longGo(name string) string {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		switch i {
		case 1:
			b.WriteString("package main\n")
		case 3:
			fmt.Fprintf(&b, "func %s() string { return \"hi\" }\n", name)
		case 29:
			b.WriteString("func main() {\n")
		case 30:
			fmt.Fprintf(&b, "\tprintln(%s())\n", name)
		case 31:
			b.WriteString("}\n")
		default:
			if i > 4 && i < 28 {
				fmt.Fprintf(&b, "// filler line %d\n", i)
			} else {
				b.WriteString("\n")
			}
		}
	}
	return b.String()
}

func TestNeovim(t *testing.T) {
	t.Run("accept", func(t *testing.T) {
		t.Parallel()
		s := scenario{
			script: "accept",
			files:  map[string]string{"main.go": mainGo},
			turns:  renameTurns("Renamed Hello to Greet."),
		}.run(t)
		r := s.res

		// Progress reached the editor.
		var begin, reports int
		for _, p := range r.Progress {
			if !strings.HasPrefix(p.Token, "agentls/") {
				t.Errorf("progress token %q", p.Token)
			}
			switch p.Kind {
			case "begin":
				begin++
				if !strings.Contains(p.Title, "rename the function Hello") {
					t.Errorf("progress title %q", p.Title)
				}
			case "report":
				reports++
			}
		}
		if begin != 1 || reports == 0 {
			t.Errorf("progress: %d begin, %d reports: %+v", begin, reports, r.Progress)
		}
		var status string
		r.get(t, "status_during", &status)
		if !strings.HasPrefix(status, "agentls: 1 run") {
			t.Errorf("status while the proposal was shown = %q", status)
		}

		// The preview: the old lines highlighted, the new ones virtual.
		var during string
		r.get(t, "buffer_during", &during)
		if during != "// edited in the buffer\n"+mainGo {
			t.Errorf("the preview changed the buffer:\n%s", during)
		}
		if fmt.Sprint(r.Preview.Deleted) != "[5 8]" {
			t.Errorf("deleted rows = %v, want [5 8]", r.Preview.Deleted)
		}
		wantAdded := []string{`func Greet() string { return "hi" }`, `        fmt.Println("héllo 日本 😀", Greet())`}
		if strings.Join(r.Preview.Added, "\n") != strings.Join(wantAdded, "\n") {
			t.Errorf("virtual lines = %q, want %q", r.Preview.Added, wantAdded)
		}
		for _, hl := range r.Preview.AddedHL {
			if hl != "AgentlsAdd" {
				t.Errorf("virtual line highlight %q", hl)
			}
		}
		if len(r.Preview.Headers) != 2 || !strings.Contains(r.Preview.Headers[0], "ga/gr all") {
			t.Errorf("hunk headers = %q", r.Preview.Headers)
		}

		// Accepted: the buffer holds the change, unsaved; the disk is as it was.
		if r.Buffer != mainGoRenamed {
			t.Errorf("buffer after accepting:\n%s", r.Buffer)
		}
		var modified bool
		r.get(t, "modified", &modified)
		if !modified {
			t.Error("the buffer is not modified after accepting")
		}
		if got := s.disk(t, "main.go"); got != mainGo {
			t.Errorf("main.go on disk changed:\n%s", got)
		}
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if !a.Applied || a.FailureReason != nil || a.Agentls == nil || len(a.Agentls.Files) != 1 {
			t.Fatalf("answer = %+v", a)
		}
		f := a.Agentls.Files[0]
		if f.Text != mainGoRenamed || len(f.RejectedHunks) != 0 || len(f.EditedHunks) != 0 || !strings.HasSuffix(f.URI, "/main.go") {
			t.Errorf("answer file = %+v", f)
		}
		var mapped int
		r.get(t, "mappings_after", &mapped)
		if mapped != 0 {
			t.Error("the proposal keys are still mapped")
		}

		// The model heard that the change was accepted.
		if resp := s.functionResponses(t, 2); !strings.Contains(resp, "accepted") {
			t.Errorf("the model was told %s", resp)
		}
		if !s.sawEvent("edit_decided") || !s.sawEvent("run_end") {
			t.Errorf("events: %+v", r.Events)
		}
		if len(r.Runs) != 1 || r.Runs[0].Reason != "goal" || r.Runs[0].Result != "Renamed Hello to Greet." {
			t.Errorf("runs = %+v", r.Runs)
		}

		// :AgentLog holds the transcript.
		var logBuf []string
		var logName string
		r.get(t, "log_buffer", &logBuf)
		r.get(t, "log_name", &logName)
		log := strings.Join(logBuf, "\n")
		for _, want := range []string{"▶ main-", "💭 Reading main.go", "💭 Renaming Hello", "→ ", "✎ proposed change to main.go (+2 −2)",
			"✎ main.go: applied", "ended: goal — Renamed Hello to Greet."} {
			if !strings.Contains(log, want) {
				t.Errorf(":AgentLog lacks %q:\n%s", want, log)
			}
		}
		if logName != "agentls://log" {
			t.Errorf(":AgentLog buffer name %q", logName)
		}
		// :checkhealth agentls found the binary and the client.
		var health []string
		r.get(t, "health", &health)
		h := strings.Join(health, "\n")
		for _, want := range []string{"OK: Neovim 0.", ": agentls ", "client 1 (agentls", "1 buffer attached"} {
			if !strings.Contains(h, want) {
				t.Errorf(":checkhealth agentls lacks %q:\n%s", want, h)
			}
		}
	})

	t.Run("reject", func(t *testing.T) {
		t.Parallel()
		s := scenario{
			script: "reject",
			files:  map[string]string{"main.go": mainGo},
			turns:  renameTurns("The user declined the rename."),
		}.run(t)
		r := s.res
		if len(r.Preview.Added) == 0 {
			t.Error("no preview was shown")
		}
		if r.Buffer != mainGo {
			t.Errorf("buffer after rejecting:\n%s", r.Buffer)
		}
		var modified bool
		r.get(t, "modified", &modified)
		if modified {
			t.Error("the buffer is modified after rejecting")
		}
		var after preview
		r.get(t, "preview_after", &after)
		if len(after.Added)+len(after.Deleted)+len(after.Headers) != 0 {
			t.Errorf("the preview is still shown: %+v", after)
		}
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if a.Applied || a.FailureReason == nil || *a.FailureReason != "rejected by the user" {
			t.Errorf("answer = %+v", a)
		}
		if a.Agentls == nil || len(a.Agentls.Files) != 1 || fmt.Sprint(a.Agentls.Files[0].RejectedHunks) != "[0 1]" {
			t.Errorf("answer extension = %+v", a.Agentls)
		}
		if resp := s.functionResponses(t, 2); !strings.Contains(resp, "rejected") {
			t.Errorf("the model was told %s", resp)
		}
	})

	t.Run("hunks", func(t *testing.T) {
		t.Parallel()
		s := scenario{
			script: "hunks",
			files:  map[string]string{"main.go": longGo("Hello")},
			turns:  renameTurns("Renamed Hello to Greet where the user agreed."),
		}.run(t)
		r := s.res
		var rows []int
		r.get(t, "hunk_rows", &rows)
		if fmt.Sprint(rows) != "[2 29]" {
			t.Errorf("hunk rows = %v, want [2 29]", rows)
		}
		var states []string
		r.get(t, "states_after_gx", &states)
		if fmt.Sprint(states) != "[pending rejected]" {
			t.Errorf("after gx on hunk 2: %v", states)
		}
		var afterGx preview
		r.get(t, "preview_after_gx", &afterGx)
		if len(afterGx.Added) != 1 || !strings.Contains(afterGx.Added[0], "Greet") || !strings.Contains(strings.Join(afterGx.Headers, "|"), "2/2: rejected") {
			t.Errorf("preview after gx: %+v", afterGx)
		}
		// Only hunk 1 was applied.
		want := strings.Replace(longGo("Hello"), "func Hello()", "func Greet()", 1)
		if r.Buffer != want {
			t.Errorf("buffer:\n%s", r.Buffer)
		}
		if got := s.disk(t, "main.go"); got != longGo("Hello") {
			t.Errorf("main.go on disk changed")
		}
		// What the plugin told the server.
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if !a.Applied || a.FailureReason != nil || a.Agentls == nil || len(a.Agentls.Files) != 1 {
			t.Fatalf("answer = %+v", a)
		}
		f := a.Agentls.Files[0]
		if fmt.Sprint(f.RejectedHunks) != "[1]" || len(f.EditedHunks) != 0 || f.Text != want {
			t.Errorf("answer file = %+v", f)
		}
		t.Logf("the model was told: %s", s.functionResponses(t, 2))
	})

	t.Run("cancel", func(t *testing.T) {
		t.Parallel()
		turns := renameTurns("never")
		turns[0].Delay = 30 * time.Second // the model is still thinking when the user cancels
		s := scenario{script: "cancel", files: map[string]string{"main.go": mainGo}, turns: turns}.run(t)
		r := s.res
		var reason string
		r.get(t, "reason", &reason)
		if reason != "aborted" {
			t.Errorf("run ended with %q, want aborted", reason)
		}
		var during, after string
		r.get(t, "status_during", &during)
		r.get(t, "status_after", &after)
		if !strings.HasPrefix(during, "agentls: 1 run") || after != "" {
			t.Errorf("status during %q, after %q", during, after)
		}
		if r.Buffer != mainGo {
			t.Errorf("buffer changed:\n%s", r.Buffer)
		}
		if len(r.Answers) != 0 || r.Pending != 0 || len(r.Preview.Added)+len(r.Preview.Headers) != 0 {
			t.Errorf("a proposal was shown: answers %+v, pending %d, preview %+v", r.Answers, r.Pending, r.Preview)
		}
		if s.sawEvent("edit_proposed") {
			t.Error("an edit was proposed after the cancel")
		}
	})

	t.Run("withdraw", func(t *testing.T) {
		t.Parallel()
		s := scenario{script: "withdraw", files: map[string]string{"main.go": mainGo}, turns: renameTurns("never")}.run(t)
		r := s.res
		var before preview
		r.get(t, "preview_before", &before)
		if len(before.Added) == 0 {
			t.Error("no preview before the cancel")
		}
		var reason, withdrawn string
		var mapped int
		r.get(t, "reason", &reason)
		r.get(t, "withdrawn", &withdrawn)
		r.get(t, "mapped", &mapped)
		if reason != "aborted" || withdrawn == "" {
			t.Errorf("run ended %q, proposal withdrawn %q", reason, withdrawn)
		}
		if r.Buffer != mainGo || len(r.Preview.Added)+len(r.Preview.Deleted)+len(r.Preview.Headers) != 0 || mapped != 0 {
			t.Errorf("after the cancel: buffer\n%s\npreview %+v, keys mapped %v", r.Buffer, r.Preview, mapped != 0)
		}
	})

	t.Run("server-exit", func(t *testing.T) {
		t.Parallel()
		s := scenario{script: "server_exit", files: map[string]string{"main.go": mainGo}, turns: renameTurns("never")}.run(t)
		r := s.res
		var before preview
		var withdrawn, status string
		r.get(t, "preview_before", &before)
		r.get(t, "withdrawn", &withdrawn)
		r.get(t, "status", &status)
		if len(before.Added) == 0 || withdrawn != "the server exited" {
			t.Errorf("preview before %+v, withdrawn %q", before, withdrawn)
		}
		if r.Buffer != mainGo || len(r.Preview.Added)+len(r.Preview.Deleted)+len(r.Preview.Headers) != 0 || status != "" {
			t.Errorf("after the server died: buffer\n%s\npreview %+v, status %q", r.Buffer, r.Preview, status)
		}
	})

	t.Run("unit", func(t *testing.T) {
		t.Parallel()
		s := scenario{script: "unit"}.run(t)
		var lines []string
		s.res.get(t, "runs_lines", &lines)
		if len(lines) != 1 || !strings.Contains(lines[0], "main-1") || !strings.Contains(lines[0], "ended: goal") {
			t.Errorf(":AgentRuns lines = %q", lines)
		}
	})

	t.Run("context", func(t *testing.T) {
		t.Parallel()
		s := scenario{
			script: "context",
			files:  map[string]string{"main.go": mainGo},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("read_file", map[string]any{"file_path": "other.go"})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "A package clause."})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Hello!"})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It returns hi."})),
			},
		}.run(t)
		var first, second, third runInfo
		var ready bool
		var clients int
		s.res.get(t, "first", &first)
		s.res.get(t, "second", &second)
		s.res.get(t, "third", &third)
		s.res.get(t, "ready_at_run", &ready)
		s.res.get(t, "clients", &clients)
		if first.Result != "A package clause." || second.Result != "Hello!" || third.Result != "It returns hi." {
			t.Errorf("runs: %+v, %+v, %+v", first, second, third)
		}
		if ready {
			t.Error("the client was ready before the first run: the test does not test the wait")
		}
		if clients != 1 {
			t.Errorf("%d clients for one workspace", clients)
		}
		calls := s.modelCalls()
		if len(calls) != 4 {
			t.Fatalf("model calls = %d", len(calls))
		}
		text := func(r geminitest.Request) string {
			var b strings.Builder
			for _, c := range r.Contents {
				for _, p := range c.Parts {
					b.WriteString(p.Text)
				}
			}
			return b.String()
		}
		// The run started before the client was ready read the unsaved buffer.
		if resp := s.functionResponses(t, 1); !strings.Contains(resp, "package other // unsaved") {
			t.Errorf("read_file of the new, unsaved other.go gave %s", resp)
		}
		if got := text(calls[2]); !strings.Contains(got, "say hello") || strings.Contains(got, "Active file") {
			t.Errorf("the unnamed buffer's task:\n%s", got)
		}
		// The selection, sent as a UTF-16 range, is exactly what was selected.
		got := text(calls[3])
		if !strings.Contains(got, "explain this") || !strings.Contains(got, "main.go") || !strings.Contains(got, "Hello() string") ||
			strings.Contains(got, "func Hello() string") {
			t.Errorf("the selection's task:\n%s", got)
		}
	})

	t.Run("edit-hunk", func(t *testing.T) {
		t.Parallel()
		src := "package main\n\n// Hello returns a greeting.\nfunc Hello() string { return \"hi\" }\n\nfunc main() {\n\tprintln(Hello())\n}\n"
		s := scenario{
			script: "edit",
			files:  map[string]string{"main.go": src},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello",
					"new_string": "Greet", "expected_replacements": 3})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})),
			},
		}.run(t)
		r := s.res
		var scratch []string
		r.get(t, "scratch_lines", &scratch)
		if strings.Join(scratch, "\n") != "// Greet returns a greeting.\nfunc Greet() string { return \"hi\" }" {
			t.Errorf("the scratch buffer held %q", scratch)
		}
		want := "package main\n\n// Salute returns a greeting.\nfunc Salute() string { return \"hi\" }\n\nfunc main() {\n\tprintln(Greet())\n}\n"
		if r.Buffer != want {
			t.Errorf("buffer:\n%s", r.Buffer)
		}
		if len(r.Answers) != 1 || r.Answers[0].Agentls == nil {
			t.Fatalf("answers = %+v", r.Answers)
		}
		f := r.Answers[0].Agentls.Files[0]
		if !r.Answers[0].Applied || fmt.Sprint(f.EditedHunks) != "[0]" || len(f.RejectedHunks) != 0 || f.Text != want {
			t.Errorf("answer = %+v, file %+v", r.Answers[0], f)
		}
	})

	t.Run("create", func(t *testing.T) {
		t.Parallel()
		content := "package main\n\nfunc Greet() string { return \"hi\" }\n"
		s := scenario{
			script: "create",
			files:  map[string]string{"main.go": mainGo},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("write_file", map[string]any{"file_path": "greet.go", "content": content})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Added greet.go."})),
			},
		}.run(t)
		r := s.res
		var create, modified, attached bool
		var name string
		r.get(t, "create", &create)
		r.get(t, "modified", &modified)
		r.get(t, "attached", &attached)
		r.get(t, "name", &name)
		if !create || name != "greet.go" || !modified || !attached {
			t.Errorf("create %v, name %q, modified %v, attached %v", create, name, modified, attached)
		}
		if strings.Join(r.Preview.Added, "\n")+"\n" != content {
			t.Errorf("preview of the new file: %q", r.Preview.Added)
		}
		if r.Buffer != content {
			t.Errorf("new buffer:\n%s", r.Buffer)
		}
		if _, err := os.Stat(filepath.Join(s.ws, "greet.go")); err == nil {
			t.Error("greet.go was written to disk")
		}
		if len(r.Answers) != 1 || !r.Answers[0].Applied {
			t.Errorf("answers = %+v", r.Answers)
		}
		if resp := s.functionResponses(t, 1); !strings.Contains(resp, "accepted") {
			t.Errorf("the model was told %s", resp)
		}
	})
}
