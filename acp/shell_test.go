//go:build unix

package acp_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func shellTurns(command string) []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("s1", "run_shell_command", map[string]any{"command": command, "description": "Say hi."})),
		geminitest.Reply(geminitest.CallID("s2", "complete_task", map[string]any{"result": "Done."})),
	}
}

// A command is asked about on its call, with the policy's answers, and its
// output is shown as a terminal shows it.
func TestShellAllowed(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, shellTurns("echo hi"))
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Say hi"); err != nil {
		t.Fatal(err)
	}
	updates, asked, _ := h.client.snapshot()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	var options []string
	for _, o := range asked[0].Options {
		options = append(options, string(o.OptionId)+" "+string(o.Kind)+" "+o.Name)
	}
	want := []string{
		"allow allow_once Allow once",
		"always allow_always Always allow `echo hi` in this session",
		"always-save allow_always Always allow `echo hi` in this workspace (saved to .agentls/policy.toml)",
		"deny reject_once Deny",
	}
	if diff := cmp.Diff(want, options); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
	tc := asked[0].ToolCall
	if tc.Kind == nil || *tc.Kind != acpsdk.ToolKindExecute || len(tc.Content) != 1 ||
		!strings.Contains(blockText(tc.Content[0].Content.Content), "echo hi") || !strings.Contains(blockText(tc.Content[0].Content.Content), "Say hi.") {
		t.Errorf("the question shows %+v", tc)
	}
	tr := without(transcript(updates), "usage")
	for _, line := range []string{
		"tool_call s1 \"Running `echo hi`\" execute pending []",
		"tool_call_update s1 in_progress",
		"tool_call_update s1 completed text(\"```\")",
	} {
		if !contains(tr, line) {
			t.Errorf("no %q in:\n%s", line, joinLines(tr))
		}
	}
	if !h.toldModel(`Output:\nhi\n`) {
		t.Error("the model was not told the output")
	}
}

// A denied command does not run, and the model is told.
func TestShellDenied(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, shellTurns("touch ran"))
	h.client.answer = choose("deny")
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Touch"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran (%v)", err)
	}
	if !h.toldModel("the user denied running") {
		t.Error("the model was not told of the denial")
	}
}

// "Always" allows the command's prefix for the rest of the session: the
// same command later runs without a question.
func TestShellAlways(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("s1", "run_shell_command", map[string]any{"command": "echo 1"})),
		geminitest.Reply(geminitest.CallID("s2", "run_shell_command", map[string]any{"command": "echo 2"})),
		geminitest.Reply(geminitest.CallID("s3", "complete_task", map[string]any{"result": "Done."})),
	}
	h := start(t, clientFS, nil, turns)
	h.client.answer = choose("always")
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Echo twice"); err != nil {
		t.Fatal(err)
	}
	if _, asked, _ := h.client.snapshot(); len(asked) != 1 {
		t.Errorf("asked %d times, want once", len(asked))
	}
	if !h.toldModel(`Output:\n2\n`) {
		t.Error("the second command did not run")
	}
}

// session/cancel stops the turn in the middle of the model's answer: the
// prompt answers cancelled.
func TestCancelMidStream(t *testing.T) {
	t.Parallel()
	slow := geminitest.Reply(geminitest.Thought("Thinking hard."), geminitest.Text("One"), geminitest.Text("Two"))
	slow.ChunkDelay = 10 * 60e9 // ten minutes: only a cancel ends it
	h := start(t, clientFS, nil, []geminitest.Turn{slow})
	sid := h.newSession().SessionId
	got := make(chan acpsdk.PromptResponse, 1)
	go func() {
		resp, err := h.prompt(sid, "Think")
		if err != nil {
			t.Error(err)
		}
		got <- resp
	}()
	h.client.waitFor(t, "thought", func(u acpsdk.SessionUpdate) bool { return u.AgentThoughtChunk != nil })
	if err := h.conn.Cancel(t.Context(), acpsdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if resp := <-got; resp.StopReason != acpsdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
}

// A permission request the client never answers holds the turn; a cancel
// still ends it, and nothing is written.
func TestCancelUnansweredPermission(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, map[string]string{"main.go": mainGo}, renameTurns())
	release := make(chan struct{})
	defer close(release)
	h.client.asking = make(chan acpsdk.RequestPermissionRequest, 1)
	h.client.answer = func(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
		<-release // never, while the test runs
		return selected("apply"), nil
	}
	sid := h.newSession().SessionId
	got := make(chan acpsdk.PromptResponse, 1)
	go func() {
		resp, err := h.prompt(sid, "Rename")
		if err != nil {
			t.Error(err)
		}
		got <- resp
	}()
	<-h.client.asking
	if err := h.conn.Cancel(t.Context(), acpsdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if resp := <-got; resp.StopReason != acpsdk.StopReasonCancelled {
		t.Errorf("stop reason %q, want cancelled", resp.StopReason)
	}
	if _, _, writes := h.client.snapshot(); len(writes) != 0 {
		t.Errorf("writes %+v after the cancel", writes)
	}
	if h.read("main.go") != mainGo {
		t.Error("main.go changed after the cancel")
	}
}

// A client that goes away in the middle of a command: the command is
// killed, the server returns, nothing is written.
func TestDisconnectKillsCommands(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("s1", "run_shell_command", map[string]any{"command": "echo $$ > pid && exec cat fifo"})),
		geminitest.Reply(geminitest.CallID("w1", "write_file", map[string]any{"file_path": "after.txt", "content": "x"})),
	}
	h := start(t, clientFS, nil, turns)
	fifo := filepath.Join(h.dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sid := h.newSession().SessionId
	go h.prompt(sid, "Wait")
	w, err := os.OpenFile(fifo, os.O_WRONLY, 0) // returns once the command reads it
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	b, err := os.ReadFile(filepath.Join(h.dir, "pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	h.in.Close() // the client goes away
	<-h.served
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) && !zombie(pid) {
		t.Errorf("the command %d outlived its client (kill: %v)", pid, err)
		syscall.Kill(pid, syscall.SIGKILL)
	}
	if _, err := os.Stat(filepath.Join(h.dir, "after.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file was written after the client left (%v)", err)
	}
}

// zombie reports whether pid is a process that ended and is not reaped.
func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	_, rest, ok := strings.Cut(string(b), ") ")
	return ok && strings.HasPrefix(rest, "Z")
}

// A command that runs while the client holds unsaved changes to a file the
// run read is told it ran against the disk.
func TestShellToldOfUnsavedBuffers(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("r1", "read_file", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(geminitest.CallID("s1", "run_shell_command", map[string]any{"command": "cat main.go"})),
		geminitest.Reply(geminitest.CallID("s2", "complete_task", map[string]any{"result": "Done."})),
	}
	h := start(t, clientFS, map[string]string{"main.go": mainGo, "other.go": "package main\n"}, turns)
	h.client.buffers[filepath.Join(h.dir, "main.go")] = mainGo + "// unsaved\n"
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Cat"); err != nil {
		t.Fatal(err)
	}
	if !h.toldModel("Unsaved in the editor, not seen by the command (it read them from disk): main.go.") {
		t.Error("the model was not told the command ran without the unsaved buffer")
	}
}
