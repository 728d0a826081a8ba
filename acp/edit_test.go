package acp_test

import (
	"os"
	"path/filepath"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

var clientFS = acpsdk.FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}

// renameTurns read main.go, rename Hello in it, and finish.
func renameTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(
			geminitest.Thought("**Reading the file**\n\nI need to see main.go first."),
			geminitest.CallID("c1", "read_file", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(
			geminitest.Text("Renaming it."),
			geminitest.CallID("c2", "replace", map[string]any{"file_path": "main.go", "old_string": "func Hello()", "new_string": "func Greet()"})),
		geminitest.Reply(geminitest.CallID("c3", "complete_task", map[string]any{"result": "Renamed Hello to Greet."})),
	}
}

const mainGo = "package main\n\nfunc Hello() {}\n"

// An edit the user allows is shown as a diff first, then written through
// the client's fs/write_text_file, and the model is told it was applied.
func TestEditAllowed(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, map[string]string{"main.go": mainGo}, renameTurns())
	sid := h.newSession().SessionId
	resp, err := h.prompt(sid, "Rename Hello to Greet")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonEndTurn {
		t.Errorf("stop reason %q, want end_turn", resp.StopReason)
	}
	updates, asked, writes := h.client.snapshot()
	want := []string{
		"thought: **Reading the file**\n\nI need to see main.go first.",
		`tool_call c1 "Reading main.go" read pending [main.go]`,
		`tool_call_update c1 completed text("Read main.go")`,
		"message: Renaming it.",
		`tool_call c2 "Editing main.go" edit pending [main.go]`,
		"tool_call_update c2 diff(main.go)",
		"tool_call_update c2 completed diff(main.go)",
		"message: \n\nRenamed Hello to Greet.",
		"title: Rename Hello to Greet",
	}
	if diff := cmp.Diff(want, without(transcript(updates), "usage")); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once", len(asked))
	}
	tc := asked[0].ToolCall
	if len(tc.Content) != 1 || tc.Content[0].Diff == nil {
		t.Fatalf("the permission request shows %+v, want the diff", tc.Content)
	}
	d := tc.Content[0].Diff
	if d.Path != filepath.Join(h.dir, "main.go") || d.OldText == nil || *d.OldText != mainGo || d.NewText != "package main\n\nfunc Greet() {}\n" {
		t.Errorf("diff %s: %v → %q", d.Path, d.OldText, d.NewText)
	}
	if len(writes) != 1 || writes[0].Path != filepath.Join(h.dir, "main.go") {
		t.Fatalf("writes %+v, want one to main.go", writes)
	}
	if got := h.read("main.go"); got != "package main\n\nfunc Greet() {}\n" {
		t.Errorf("main.go = %q", got)
	}
	if !h.toldModel("The user accepted the change") {
		t.Error("the model was not told the change was applied")
	}
}

// A rejected edit is not written, and the model is told.
func TestEditRejected(t *testing.T) {
	t.Parallel()
	turns := renameTurns()
	turns[2] = geminitest.Reply(geminitest.CallID("c3", "complete_task", map[string]any{"result": "The user said no."}))
	h := start(t, clientFS, map[string]string{"main.go": mainGo}, turns)
	h.client.answer = choose("reject")
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Rename Hello to Greet"); err != nil {
		t.Fatal(err)
	}
	updates, _, writes := h.client.snapshot()
	if len(writes) != 0 {
		t.Errorf("writes %+v after a rejection", writes)
	}
	if got := h.read("main.go"); got != mainGo {
		t.Errorf("main.go = %q, want it unchanged", got)
	}
	if !h.toldModel("The user rejected the change to main.go") {
		t.Error("the model was not told of the rejection")
	}
	tr := transcript(updates)
	if !contains(tr, `tool_call_update c2 failed diff(main.go) text("The user rejected the change to main.go; the file is unchanged. Do not propose the same change again.")`) {
		t.Errorf("the rejection is not shown on the call:\n%s", joinLines(tr))
	}
}

// A client that cannot write files gets its files written to disk, in one
// step, and reads from the disk.
func TestEditWithoutClientFiles(t *testing.T) {
	t.Parallel()
	h := start(t, acpsdk.FileSystemCapabilities{}, map[string]string{"main.go": mainGo}, renameTurns())
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Rename Hello to Greet"); err != nil {
		t.Fatal(err)
	}
	_, asked, writes := h.client.snapshot()
	if len(asked) != 1 || len(writes) != 0 {
		t.Errorf("asked %d times, %d client writes; want one question, no client write", len(asked), len(writes))
	}
	if got := h.read("main.go"); got != "package main\n\nfunc Greet() {}\n" {
		t.Errorf("main.go = %q", got)
	}
	h.client.mu.Lock()
	defer h.client.mu.Unlock()
	if h.client.reads != nil {
		t.Errorf("the client was asked to read %v; it cannot", h.client.reads)
	}
}

// The run reads the client's unsaved buffer, computes its change against
// it, and the client writes it.
func TestEditUnsavedBuffer(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, map[string]string{"main.go": mainGo}, renameTurns())
	unsaved := "package main\n\n// Hello greets.\nfunc Hello() {}\n"
	h.client.buffers[filepath.Join(h.dir, "main.go")] = unsaved
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Rename Hello to Greet"); err != nil {
		t.Fatal(err)
	}
	_, asked, writes := h.client.snapshot()
	if d := asked[0].ToolCall.Content[0].Diff; *d.OldText != unsaved {
		t.Errorf("the diff is against %q, want the unsaved buffer", *d.OldText)
	}
	if len(writes) != 1 || writes[0].Content != "package main\n\n// Hello greets.\nfunc Greet() {}\n" {
		t.Errorf("writes %+v", writes)
	}
}

// A change through a symlink is computed against the client's unsaved
// buffer of the file the link leads to, checked against that same buffer
// before the write, and written to that file.
func TestEditThroughALinkUnsavedBuffer(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("c1", "replace", map[string]any{"file_path": "alias.go", "old_string": "func Hello()", "new_string": "func Greet()"})),
		geminitest.Reply(geminitest.CallID("c2", "complete_task", map[string]any{"result": "Renamed."})),
	}
	h := start(t, clientFS, map[string]string{"main.go": mainGo}, turns)
	if err := os.Symlink("main.go", filepath.Join(h.dir, "alias.go")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	h.client.buffers[filepath.Join(h.dir, "main.go")] = "package main\n\n// Hello greets.\nfunc Hello() {}\n"
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Rename Hello to Greet"); err != nil {
		t.Fatal(err)
	}
	_, _, writes := h.client.snapshot()
	if len(writes) != 1 || writes[0].Path != filepath.Join(h.dir, "main.go") || writes[0].Content != "package main\n\n// Hello greets.\nfunc Greet() {}\n" {
		t.Errorf("writes %+v, want the unsaved buffer of main.go renamed, written to main.go", writes)
	}
}

// "Apply all" switches the session to auto edit, says so both ways, and
// later changes are written without asking.
func TestApplyAll(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("c1", "write_file", map[string]any{"file_path": "a.txt", "content": "a\n"})),
		geminitest.Reply(geminitest.CallID("c2", "write_file", map[string]any{"file_path": "b.txt", "content": "b\n"})),
		geminitest.Reply(geminitest.CallID("c3", "complete_task", map[string]any{"result": "Wrote both."})),
	}
	h := start(t, clientFS, nil, turns)
	h.client.answer = choose("apply-all")
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Write a.txt and b.txt"); err != nil {
		t.Fatal(err)
	}
	updates, asked, writes := h.client.snapshot()
	if len(asked) != 1 || len(writes) != 2 {
		t.Errorf("asked %d times, wrote %d files; want one question, two writes", len(asked), len(writes))
	}
	tr := transcript(updates)
	if !contains(tr, "mode: autoEdit") || !contains(tr, "config_options") {
		t.Errorf("the mode change is not told:\n%s", joinLines(tr))
	}
	if h.read("b.txt") != "b\n" {
		t.Error("b.txt is not written")
	}
}
