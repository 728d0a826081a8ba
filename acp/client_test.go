package acp_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// The TypeScript client tests: the official ACP TypeScript SDK
// (@agentclientprotocol/sdk, pinned in testdata/client/package-lock.json)
// drives the built agentls binary, which talks to the fake Gemini server
// through the real genai SDK. testdata/client/client.mjs follows a plan of
// steps written here and prints what it saw; the test checks that, the
// files on disk and what the model was told.
//
// They need node and the client's packages (npm ci in testdata/client):
// without them they skip, or fail when AGENTLS_REQUIRE_NODE=1 (CI, see
// .ci/acp.sh).

const nodeTimeout = 90 * time.Second

var (
	buildOnce  sync.Once
	binDir     string
	agentlsBin string
	buildErr   error
)

// tsClient returns node's path and the test client's, once the agentls
// binary is built; it skips the test, or fails it under
// AGENTLS_REQUIRE_NODE=1, when node or the client's packages are missing.
func tsClient(t *testing.T) (node, script string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", "client", "client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	node, err = exec.LookPath("node")
	if err == nil {
		_, err = os.Stat(filepath.Join(filepath.Dir(script), "node_modules", "@agentclientprotocol", "sdk", "package.json"))
	}
	if err != nil {
		if os.Getenv("AGENTLS_REQUIRE_NODE") == "1" {
			t.Fatalf("the TypeScript client cannot run, and AGENTLS_REQUIRE_NODE=1: %v (run npm ci in acp/testdata/client)", err)
		}
		t.Skipf("the TypeScript client cannot run: %v (npm ci in acp/testdata/client)", err)
	}
	buildOnce.Do(func() {
		if bin := os.Getenv("AGENTLS_TEST_BIN"); bin != "" {
			agentlsBin = bin
			return
		}
		binDir, buildErr = os.MkdirTemp("", "agentls-acp-test-")
		if buildErr != nil {
			return
		}
		agentlsBin = filepath.Join(binDir, "agentls")
		out, err := exec.Command("go", "build", "-o", agentlsBin, "github.com/agentls/agentls/cmd/agentls").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return node, script
}

// step is one step of a plan (see client.mjs).
type step map[string]any

// outcome is what the client saw.
type outcome struct {
	Steps []struct {
		Do     string          `json:"do"`
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	} `json:"steps"`
	Updates     []map[string]any `json:"updates"`
	Permissions []struct {
		Step     int              `json:"step"`
		ToolCall map[string]any   `json:"toolCall"`
		Options  []map[string]any `json:"options"`
	} `json:"permissions"`
	Writes []struct {
		Step    int    `json:"step"`
		Path    string `json:"path"`
		Content string `json:"content"`
	} `json:"writes"`
	Reads []string `json:"reads"`
	Exits []struct {
		Code   *int    `json:"code"`
		Signal *string `json:"signal"`
	} `json:"exits"`
}

// A tsRun is one run of the client against a folder and a fake model.
type tsRun struct {
	t     *testing.T
	dir   string
	gem   *geminitest.Server
	state string // XDG_STATE_HOME: traces, sessions
}

func newTSRun(t *testing.T, files map[string]string, turns ...geminitest.Turn) *tsRun {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	return &tsRun{t: t, dir: dir, gem: geminitest.NewServer(t, turns...), state: t.TempDir()}
}

// play runs the client through a plan and returns what it saw.
func (r *tsRun) play(plan ...step) outcome {
	t := r.t
	t.Helper()
	node, script := tsClient(t)
	js, err := json.Marshal(plan)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script, string(js))
	home := t.TempDir()
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + r.state, "AGENTLS_BIN=" + agentlsBin,
		"GEMINI_API_KEY=test-key", "GOOGLE_GEMINI_BASE_URL=" + r.gem.URL}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the client: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var o outcome
	if err := json.Unmarshal(stdout.Bytes(), &o); err != nil {
		t.Fatalf("the client's outcome: %v\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("agentls's log:\n%s", stderr.String())
		}
	})
	for i, e := range o.Exits {
		if e.Code == nil || *e.Code != 0 {
			t.Errorf("agentls process %d exited with %+v", i, e)
		}
	}
	return o
}

func (r *tsRun) init(fs bool) []step {
	return []step{
		{"do": "initialize", "fs": map[string]bool{"readTextFile": fs, "writeTextFile": fs}},
		{"do": "new", "cwd": r.dir},
	}
}

func (r *tsRun) read(name string) string {
	r.t.Helper()
	b, err := os.ReadFile(filepath.Join(r.dir, name))
	if err != nil {
		r.t.Fatal(err)
	}
	return string(b)
}

func (r *tsRun) toldModel(s string) bool {
	reqs := r.gem.Requests()
	return len(reqs) > 0 && strings.Contains(string(reqs[len(reqs)-1].Body), s)
}

// stop is the stop reason a prompt step answered, or its error.
func (o outcome) stop(t *testing.T, i int) string {
	t.Helper()
	s := o.Steps[i]
	if s.Error != nil {
		return fmt.Sprintf("error %d %s", s.Error.Code, s.Error.Message)
	}
	var r struct {
		StopReason string `json:"stopReason"`
	}
	if err := json.Unmarshal(s.Result, &r); err != nil {
		t.Fatal(err)
	}
	return r.StopReason
}

// kinds is the session/update kinds of a step, with the tool calls' kinds
// and statuses, in order; usage updates left out.
func (o outcome) kinds(step int) []string {
	var out []string
	for _, u := range o.Updates {
		if int(u["step"].(float64)) != step || u["sessionUpdate"] == "usage_update" {
			continue
		}
		k := u["sessionUpdate"].(string)
		switch k {
		case "tool_call":
			k += fmt.Sprintf(" %v %v", u["kind"], u["status"])
		case "tool_call_update":
			if s, ok := u["status"]; ok {
				k += fmt.Sprintf(" %v", s)
			}
			for _, c := range list(u["content"]) {
				k += fmt.Sprintf(" %v", c.(map[string]any)["type"])
			}
		}
		out = append(out, k)
	}
	return out
}

func list(v any) []any {
	l, _ := v.([]any)
	return l
}

func mustDecode(t *testing.T, raw []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(raw, v); err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
}

// replays checks that the turn's trace replays with agentls replay, offline,
// on a folder holding files (what the turn started from): the replay ends
// done, and the changes it applies to a scratch copy make main.go want.
func (r *tsRun) replays(files map[string]string, want string) {
	t := r.t
	t.Helper()
	traces, err := filepath.Glob(filepath.Join(r.state, "agentls", "runs", "*", "*.jsonl"))
	if err != nil || len(traces) != 1 {
		t.Fatalf("traces %v (%v), want the turn's one", traces, err)
	}
	dir := t.TempDir()
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	ctx, cancel := context.WithTimeout(t.Context(), nodeTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, agentlsBin, "replay", "--workspace", dir, "--apply", traces[0])
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir()}
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "The replay followed the recording (recorded stop: goal)") {
		t.Fatalf("agentls replay: %v\n%s", err, out)
	}
	_, copyDir, ok := strings.Cut(string(out), "The scratch copy is in ")
	if !ok {
		t.Fatalf("agentls replay names no scratch copy:\n%s", out)
	}
	copyDir = strings.TrimSpace(copyDir)
	defer os.RemoveAll(copyDir)
	if got, err := os.ReadFile(filepath.Join(copyDir, "main.go")); err != nil || string(got) != want {
		t.Errorf("the replay's main.go = %q (%v), want %q", got, err, want)
	}
}
