package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

var update = flag.Bool("update", false, "rewrite the example session from the scripted fake model")

const (
	exampleDir     = "../../examples/hello"
	exampleSession = "../../examples/hello.session.jsonl"
	examplePrompt  = "Rename the function Hello to Greet in main.go"
)

// agentls runs the command in-process and returns its exit code and output.
func agentls(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, func(k string) string { return env[k] })
	return code, stdout.String(), stderr.String()
}

func fakeEnv(srv *geminitest.Server) map[string]string {
	return map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := agentls(t, nil, "", "version")
	if code != 0 || !strings.HasPrefix(out, "agentls ") {
		t.Errorf("version: %d %q", code, out)
	}
}

func TestUnknownCommand(t *testing.T) {
	t.Parallel()
	code, _, errOut := agentls(t, nil, "", "frobnicate")
	if code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// demoTurns is the scripted model session the offline demo replays.
func demoTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(
			geminitest.Thought("**Looking at main.go**\n\nI will read the file to find Hello and its callers."),
			geminitest.Call("read_file", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(
			geminitest.Thought("**Renaming Hello to Greet**\n\nThe declaration and its one call in main both change; the doc comment too."),
			geminitest.Call("replace", map[string]any{
				"file_path":  "main.go",
				"old_string": "// Hello returns a greeting.\nfunc Hello(name string) string {",
				"new_string": "// Greet returns a greeting.\nfunc Greet(name string) string {",
			}),
			geminitest.Call("replace", map[string]any{
				"file_path":  "main.go",
				"old_string": "fmt.Println(Hello(",
				"new_string": "fmt.Println(Greet(",
			})),
		geminitest.Reply(
			geminitest.Text("Both changes were accepted."),
			geminitest.Call("complete_task", map[string]any{"result": "Renamed `Hello` to `Greet` in main.go: the declaration, its doc comment and the call in `main`."})),
	}
}

// TestExampleSession records the demo session against the scripted fake
// model and checks it matches the one shipped in examples/ (-update
// rewrites it).
func TestExampleSession(t *testing.T) {
	srv := geminitest.NewServer(t, demoTurns()...)
	session := filepath.Join(t.TempDir(), "session.jsonl")
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", exampleDir, "--scratch", "--yes", "--record", session, examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got, err := os.ReadFile(session)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(exampleSession, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(exampleSession)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the recorded session differs from %s; run go test ./cmd/agentls -run TestExampleSession -update", exampleSession)
	}
}

// TestReplayDemo runs the README's first command.
func TestReplayDemo(t *testing.T) {
	t.Parallel()
	before, _ := os.ReadFile(filepath.Join(exampleDir, "main.go"))
	code, out, errOut := agentls(t, nil, "", "run", "--replay", exampleSession, "--workspace", exampleDir, "--scratch", "--yes")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"· Looking at main.go", "→ Reading main.go", "-func Hello(name string) string {", "+func Greet(name string) string {", "change to main.go: applied", "✓ Done"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	m := regexp.MustCompile(`The scratch copy is in (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no scratch path in output:\n%s", out)
	}
	t.Cleanup(func() { os.RemoveAll(m[1]) })
	changed, err := os.ReadFile(filepath.Join(m[1], "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	want := strings.NewReplacer("// Hello returns", "// Greet returns", "func Hello(", "func Greet(", "Println(Hello(", "Println(Greet(").Replace(string(before))
	if string(changed) != want {
		t.Errorf("scratch main.go:\n%s", changed)
	}
	if after, _ := os.ReadFile(filepath.Join(exampleDir, "main.go")); !bytes.Equal(after, before) {
		t.Error("the demo changed examples/ itself")
	}
}

func TestReplayReportsDivergence(t *testing.T) {
	t.Parallel()
	empty := t.TempDir() // no main.go: read_file fails where the recording read it
	code, out, _ := agentls(t, nil, "", "run", "--replay", exampleSession, "--workspace", empty, "--yes")
	if code != stopCodes["error"] || !strings.Contains(out, "replay diverged") || !strings.Contains(out, "read_file:error") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

func TestRunYesWritesToDiskKeepingMode(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(filepath.Join(exampleDir, "main.go"))
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewServer(t, demoTurns()...)
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", dir, "--yes", examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got, _ := os.ReadFile(path)
	if !strings.Contains(string(got), "func Greet(") || strings.Contains(string(got), "Hello(") {
		t.Errorf("main.go:\n%s", got)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("leftover files: %v", entries)
	}
}

func TestRunAsksAndUserRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(filepath.Join(exampleDir, "main.go"))
	os.WriteFile(path, src, 0o644)
	srv := geminitest.NewServer(t, demoTurns()...)
	code, out, _ := agentls(t, fakeEnv(srv), "n\nn\n", "run", "--workspace", dir, examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Errorf("main.go changed after refusing:\n%s", got)
	}
	if !strings.Contains(out, "Apply the change to main.go? [y/n]") || !strings.Contains(out, "rejected") {
		t.Errorf("output:\n%s", out)
	}
}

func TestRunWithoutKey(t *testing.T) {
	t.Parallel()
	code, _, errOut := agentls(t, nil, "", "run", "--workspace", t.TempDir(), "hello")
	if code != 2 || !strings.Contains(errOut, "GEMINI_API_KEY") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
