package neovim_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// The headless Neovim tests: the plugin (this directory on 'runtimepath')
// drives the real agentls binary, which talks to the fake Gemini server
// through the real genai SDK. Each scenario is a Lua script in tests/ that
// writes what it saw as JSON; the Go side checks it, the files on disk and
// what the model was told. Every test runs on every Neovim given (see
// neovims), as a subtest named by its version.

const nvimTimeout = 60 * time.Second

var (
	agentlsBin string   // the binary under test
	buildErr   error    // why it could not be built
	nvims      []neovim // the Neovims to test on
	nvimErr    error    // why one of them cannot run
)

// A neovim is one Neovim binary and its version.
type neovim struct {
	path    string
	version string // "0.12.4"
}

// atLeast reports whether the version is at least major.minor.
func (n neovim) atLeast(major, minor int) bool {
	parts := strings.Split(n.version, ".")
	if len(parts) < 2 {
		return false
	}
	ma, _ := strconv.Atoi(parts[0])
	mi, _ := strconv.Atoi(parts[1])
	return ma > major || ma == major && mi >= minor
}

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	nvims, nvimErr = findNeovims()
	hashPlugin()
	if len(nvims) == 0 {
		return m.Run() // the tests skip (or fail under AGENTLS_REQUIRE_NVIM=1)
	}
	dir, err := os.MkdirTemp("", "agentls-nvim-test-")
	if err != nil {
		buildErr = err
		return m.Run()
	}
	defer os.RemoveAll(dir)
	agentlsBin, buildErr = lsptest.BuildServer(dir)
	return m.Run()
}

// findNeovims finds the Neovims to test on: the paths in AGENTLS_NVIM
// (separated by spaces; CI gives Debian's 0.7.2 and a current 0.12), else
// nvim on PATH.
func findNeovims() ([]neovim, error) {
	paths := strings.Fields(os.Getenv("AGENTLS_NVIM"))
	if len(paths) == 0 {
		p, err := exec.LookPath("nvim")
		if err != nil {
			return nil, nil
		}
		paths = []string{p}
	}
	var out []neovim
	for _, p := range paths {
		b, err := exec.Command(p, "--version").Output()
		if err != nil {
			return nil, fmt.Errorf("%s --version: %v", p, err)
		}
		first, _, _ := strings.Cut(string(b), "\n")
		v := strings.TrimPrefix(strings.TrimSpace(strings.TrimPrefix(first, "NVIM")), "v")
		if i := strings.IndexAny(v, "-+ "); i >= 0 {
			v = v[:i]
		}
		out = append(out, neovim{path: p, version: v})
	}
	return out, nil
}

// hashPlugin reads the plugin's files, so that Go's test cache reruns these
// tests when one changes (Neovim reads them, which the cache does not see).
func hashPlugin() {
	for _, dir := range []string{"lua", "tests", "doc"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				os.ReadFile(path)
			}
			return nil
		})
	}
}

// eachNeovim runs fn as a parallel subtest for every Neovim; without one,
// the test skips, or fails when AGENTLS_REQUIRE_NVIM=1 (CI).
func eachNeovim(t *testing.T, fn func(t *testing.T, nv neovim)) {
	t.Helper()
	t.Parallel()
	if nvimErr != nil {
		t.Fatal(nvimErr)
	}
	if len(nvims) == 0 {
		if os.Getenv("AGENTLS_REQUIRE_NVIM") == "1" {
			t.Fatal("nvim is not on PATH (nor in AGENTLS_NVIM), and AGENTLS_REQUIRE_NVIM=1")
		}
		t.Skip("nvim is not on PATH")
	}
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	for _, nv := range nvims {
		t.Run(nv.version, func(t *testing.T) {
			t.Parallel()
			fn(t, nv)
		})
	}
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
	env    []string          // more environment for nvim
}

type session struct {
	res  *result
	srv  *geminitest.Server
	ws   string
	logs string // nvim's output and the LSP log, for failures
}

// env is the environment of a Neovim under test: its own HOME and XDG
// directories under tmp, the fake Gemini server, the binary under test.
func env(tmp, geminiURL string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + filepath.Join(tmp, "home"),
		"XDG_CONFIG_HOME=" + filepath.Join(tmp, "config"),
		"XDG_DATA_HOME=" + filepath.Join(tmp, "data"),
		"XDG_STATE_HOME=" + filepath.Join(tmp, "state"),
		"XDG_CACHE_HOME=" + filepath.Join(tmp, "cache"),
		"TMPDIR=" + tmp,
		"GEMINI_API_KEY=test-key",
		"GOOGLE_GEMINI_BASE_URL=" + geminiURL,
		"AGENTLS_BIN=" + agentlsBin,
		"AGENTLS_TEST_LSP_LOG=" + os.Getenv("AGENTLS_TEST_LSP_LOG"),
	}
}

// workspace writes files into a new directory.
func workspace(t *testing.T, files map[string]string) string {
	t.Helper()
	ws := t.TempDir()
	for name, text := range files {
		p := filepath.Join(ws, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ws
}

func (s scenario) run(t *testing.T, nv neovim) *session {
	t.Helper()
	srv := geminitest.NewServer(t, s.turns...)
	ws, tmp := workspace(t, s.files), t.TempDir()
	pluginDir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(pluginDir, "tests", s.script+".lua")
	out := filepath.Join(tmp, "result.json")
	ctx, cancel := context.WithTimeout(t.Context(), nvimTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, nv.path, "--headless", "-u", "NONE", "-i", "NONE",
		"--cmd", "set rtp+="+vimEscape(pluginDir),
		"-c", "luafile "+vimEscape(script))
	cmd.Dir = ws
	cmd.Env = append(append(env(tmp, srv.URL), "AGENTLS_TEST_OUT="+out), s.env...)
	cmd.WaitDelay = 5 * time.Second
	var output bytes.Buffer
	cmd.Stdout, cmd.Stderr = &output, &output
	start := time.Now()
	runErr := cmd.Run()
	t.Logf("nvim %s ran %s", nv.version, time.Since(start).Round(time.Millisecond))

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
	if err := checkAnswers(res.Extra["answers"]); err != nil {
		t.Errorf("scenario %s: %v", s.script, err)
	}
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
func modelCalls(srv *geminitest.Server) []geminitest.Request {
	var out []geminitest.Request
	for _, r := range srv.Requests() {
		if r.RPC == "streamGenerateContent" || r.RPC == "generateContent" {
			out = append(out, r)
		}
	}
	return out
}

func (s *session) modelCalls() []geminitest.Request { return modelCalls(s.srv) }

// functionResponses returns the JSON of the function responses in the last
// content of the model's call n (from 0).
func functionResponses(t *testing.T, srv *geminitest.Server, n int, logs string) string {
	t.Helper()
	calls := modelCalls(srv)
	if len(calls) <= n {
		t.Fatalf("the model was called %d times, want at least %d\n%s", len(calls), n+1, logs)
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

func (s *session) functionResponses(t *testing.T, n int) string {
	t.Helper()
	return functionResponses(t, s.srv, n, s.logs)
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
