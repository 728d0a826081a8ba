package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// agentls runs the command in-process and returns its exit code and output.
// The environment is env alone: no HOME, so no user files and no traces
// unless a test names a folder for them.
func agentls(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(stdin), &stdout, &stderr, environ(env))
	return code, stdout.String(), stderr.String()
}

func environ(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func fakeEnv(srv *geminitest.Server) map[string]string {
	return map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL}
}

// copyExample copies examples/hello to a new folder.
func copyExample(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(dir, os.DirFS(exampleDir)); err != nil {
		t.Fatal(err)
	}
	return dir
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
	if code != exitUsage || !strings.Contains(errOut, "unknown command") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}

// TestReplayDemo runs the README's first command, as CI does.
func TestReplayDemo(t *testing.T) {
	t.Parallel()
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile("(?m)^```sh\n(.*)\n").FindSubmatch(readme)
	if m == nil {
		t.Fatal("README has no sh block")
	}
	cmd, ok := strings.CutPrefix(string(m[1]), "go run ./cmd/agentls ")
	if !ok {
		t.Fatalf("README's first command is not agentls: %s", m[1])
	}
	args := strings.Fields(cmd)
	for i, a := range args {
		if strings.HasPrefix(a, "examples/") {
			args[i] = "../../" + a // the test runs in cmd/agentls
		}
	}
	before, _ := os.ReadFile(filepath.Join(exampleDir, "main.go"))
	code, out, errOut := agentls(t, nil, "", args...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"no model call, no command runs", "· Looking at main.go", "→ Reading main.go",
		"-func Hello(name string) string {", "+func Greet(name string) string {", "change to main.go: applied",
		"→ Running `grep -n 'Hello\\|Greet' main.go`", "(recorded; not run)", "✓ Done", "The replay followed the recording"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	scratch := regexp.MustCompile(`The scratch copy is in (\S+)`).FindStringSubmatch(out)
	if scratch == nil {
		t.Fatalf("no scratch path in output:\n%s", out)
	}
	t.Cleanup(func() { os.RemoveAll(scratch[1]) })
	changed, err := os.ReadFile(filepath.Join(scratch[1], "main.go"))
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
	code, out, errOut := agentls(t, nil, "", "replay", exampleTrace, "--workspace", empty)
	if code != exitDiverged {
		t.Errorf("exit %d, want %d\n%s\n%s", code, exitDiverged, out, errOut)
	}
	for _, want := range []string{"✗ The replay diverged from the recording at model call", "recorded: a call answering [read_file:ok]",
		"now:      a call answering [read_file:error]"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// agentls run --replay is agentls replay; --scratch is --apply.
func TestRunReplayAlias(t *testing.T) {
	t.Parallel()
	code, out, errOut := agentls(t, nil, "", "run", "--replay", exampleTrace, "--workspace", exampleDir, "--scratch", "--yes")
	if code != 0 || !strings.Contains(out, "✓ Done") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if m := regexp.MustCompile(`The scratch copy is in (\S+)`).FindStringSubmatch(out); m != nil {
		os.RemoveAll(m[1])
	} else {
		t.Errorf("no scratch copy:\n%s", out)
	}
}

// --yes writes to disk atomically: a new file renamed over the old one
// (a hard link to the old one keeps the old content), with the old mode.
func TestRunYesWritesToDiskAtomically(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(filepath.Join(exampleDir, "main.go"))
	if err := os.WriteFile(path, src, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(path, filepath.Join(dir, "old.link")); err != nil {
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
	if old, _ := os.ReadFile(filepath.Join(dir, "old.link")); !bytes.Equal(old, src) {
		t.Error("main.go was rewritten in place, not replaced")
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("leftover files: %v", entries)
	}
	if !strings.Contains(out, "✗ Denied: run `grep") {
		t.Errorf("--yes ran a command without a rule:\n%s", out)
	}
}

func TestRunAsksAndUserRefuses(t *testing.T) {
	t.Parallel()
	dir := copyExample(t)
	path := filepath.Join(dir, "main.go")
	src, _ := os.ReadFile(path)
	srv := geminitest.NewServer(t, demoTurns()...)
	code, out, _ := agentls(t, fakeEnv(srv), "n\nn\nn\n", "run", "--workspace", dir, examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s", code, out)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, src) {
		t.Errorf("main.go changed after refusing:\n%s", got)
	}
	if !strings.Contains(out, "Apply the change to main.go? [y/n/a/d/q]") || !strings.Contains(out, "rejected") {
		t.Errorf("output:\n%s", out)
	}
}

func TestRunWithoutKey(t *testing.T) {
	t.Parallel()
	code, _, errOut := agentls(t, nil, "", "run", "--workspace", t.TempDir(), "hello")
	if code != exitUsage || !strings.Contains(errOut, "GEMINI_API_KEY") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
}
