package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// On the terminal: a run starts a session; --continue follows it up with
// the first run's turns; agentls sessions lists it with its cost; agentls
// revert shows the revert as a diff, asks, and puts the file back; bad
// session ids get clear errors.
func TestTerminalSessions(t *testing.T) {
	t.Parallel()
	ws := copyExample(t)
	main := filepath.Join(ws, "main.go")
	original, _ := os.ReadFile(main)
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "func Hello(", "new_string": "func Greet("})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Renamed."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It greets."})))
	env := fakeEnv(srv)
	env["XDG_STATE_HOME"] = t.TempDir()

	code, out, errOut := agentls(t, env, "", "run", "--workspace", ws, "--yes", "rename Hello to Greet")
	if code != 0 {
		t.Fatalf("first run: exit %d\n%s\n%s", code, out, errOut)
	}
	ids := regexp.MustCompile(`Session (s-[0-9a-f]{8}): .* agentls revert (main-[0-9a-f]{8})`).FindStringSubmatch(out)
	if ids == nil {
		t.Fatalf("the run does not name its session and run:\n%s", out)
	}
	sessionID, runID := ids[1], ids[2]
	if !strings.Contains(out, "estimated cost $") {
		t.Errorf("the run's end does not say what it cost:\n%s", out)
	}

	code, out, errOut = agentls(t, env, "", "run", "--workspace", ws, "--continue", "what does it do now?")
	if code != 0 {
		t.Fatalf("follow-up: exit %d\n%s\n%s", code, out, errOut)
	}
	follow := srv.Requests()[2].Contents
	if len(follow) != 5 || !strings.Contains(follow[0].Parts[0].Text, "rename Hello to Greet") {
		t.Errorf("the follow-up's first request has %d contents, the first %+v", len(follow), follow[0])
	}

	code, out, _ = agentls(t, env, "", "sessions", "--workspace", ws, "--runs")
	if code != 0 || !strings.Contains(out, sessionID) || !regexp.MustCompile(sessionID+`\s+2\s+\d+\s+\$0\.\d+\s+rename Hello to Greet`).MatchString(out) ||
		!strings.Contains(out, runID) || !strings.Contains(out, "goal, 1 changes") {
		t.Errorf("sessions: exit %d\n%s", code, out)
	}

	code, out, errOut = agentls(t, env, "y\n", "revert", "--workspace", ws, runID)
	if code != 0 || !strings.Contains(out, "-func Greet(name string) string {") || !strings.Contains(out, "+func Hello(name string) string {") ||
		!strings.Contains(out, "Reverted run "+runID+": main.go reverted.") {
		t.Errorf("revert: exit %d\n%s\n%s", code, out, errOut)
	}
	if now, _ := os.ReadFile(main); string(now) != string(original) {
		t.Errorf("after the revert main.go is:\n%s", now)
	}
	code, _, errOut = agentls(t, env, "", "revert", "--workspace", ws, runID)
	if code != exitUsage || !strings.Contains(errOut, "reverted already") {
		t.Errorf("a second revert: exit %d, %s", code, errOut)
	}
	code, _, errOut = agentls(t, env, "", "revert", "--workspace", ws, "main-00000000")
	if code != exitUsage || !strings.Contains(errOut, `no such session holds run "main-00000000"`) {
		t.Errorf("revert of no run: exit %d, %s", code, errOut)
	}

	code, out, _ = agentls(t, env, "", "sessions", "--workspace", ws, "--delete", sessionID)
	if code != 0 || !strings.Contains(out, "Deleted session "+sessionID) {
		t.Errorf("delete: exit %d, %s", code, out)
	}
	code, _, errOut = agentls(t, env, "", "run", "--workspace", ws, "--session", sessionID, "more")
	if code != exitUsage || !strings.Contains(errOut, "deleted") {
		t.Errorf("a deleted session: exit %d, %s", code, errOut)
	}
	code, _, errOut = agentls(t, env, "", "run", "--workspace", ws, "--continue", "more")
	if code != exitUsage || !strings.Contains(errOut, "no sessions yet") {
		t.Errorf("--continue without sessions: exit %d, %s", code, errOut)
	}
	if len(srv.Requests()) != 3 {
		t.Errorf("%d model calls, want 3: a refused follow-up called the model", len(srv.Requests()))
	}
}

// A revert the user declines changes nothing and exits non-zero.
func TestTerminalRevertDeclined(t *testing.T) {
	t.Parallel()
	ws := copyExample(t)
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("write_file", map[string]any{"file_path": "extra.go", "content": "package main\n"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Added."})))
	env := fakeEnv(srv)
	env["XDG_STATE_HOME"] = t.TempDir()
	_, out, _ := agentls(t, env, "", "run", "--workspace", ws, "--yes", "add extra.go")
	runID := regexp.MustCompile(`agentls revert (main-[0-9a-f]{8})`).FindStringSubmatch(out)[1]
	code, out, _ := agentls(t, env, "n\n", "revert", "--workspace", ws, runID)
	if code == 0 || !strings.Contains(out, "delete extra.go") || !strings.Contains(out, "declined; nothing changed") {
		t.Errorf("declined revert: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "extra.go")); err != nil {
		t.Errorf("extra.go is gone after a declined revert: %v", err)
	}
	code, out, _ = agentls(t, env, "", "revert", "--workspace", ws, "--yes", runID)
	if code != 0 || !strings.Contains(out, "extra.go deleted") {
		t.Errorf("revert --yes: exit %d\n%s", code, out)
	}
	if _, err := os.Stat(filepath.Join(ws, "extra.go")); !os.IsNotExist(err) {
		t.Errorf("extra.go after the revert: %v", err)
	}
}
