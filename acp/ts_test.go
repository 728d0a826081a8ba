package acp_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// initialize → new session → prompt: thoughts and tool calls stream in, the
// edit is asked with its diff, allowed, written through fs/write_text_file,
// and the model is told.
func TestTSEditAllowed(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, map[string]string{"main.go": mainGo}, renameTurns()...)
	o := r.play(append(r.init(true), step{"do": "prompt", "text": "Rename Hello to Greet", "answers": []string{"allow_once"}})...)
	var init struct {
		ProtocolVersion   int `json:"protocolVersion"`
		AgentCapabilities struct {
			PromptCapabilities struct {
				EmbeddedContext bool `json:"embeddedContext"`
			} `json:"promptCapabilities"`
		} `json:"agentCapabilities"`
		AgentInfo struct {
			Name string `json:"name"`
		} `json:"agentInfo"`
	}
	mustDecode(t, o.Steps[0].Result, &init)
	if init.ProtocolVersion != 1 || init.AgentInfo.Name != "agentls" || !init.AgentCapabilities.PromptCapabilities.EmbeddedContext {
		t.Errorf("initialize answered %s", o.Steps[0].Result)
	}
	if got := o.stop(t, 2); got != "end_turn" {
		t.Errorf("the prompt answered %s", got)
	}
	want := []string{
		"agent_thought_chunk",
		"tool_call read pending",
		"tool_call_update completed content",
		"agent_message_chunk",
		"tool_call edit pending",
		"tool_call_update diff",
		"tool_call_update completed diff",
		"agent_message_chunk",
		"session_info_update",
	}
	if diff := cmp.Diff(want, o.kinds(2)); diff != "" {
		t.Errorf("updates (-want +got):\n%s", diff)
	}
	if len(o.Permissions) != 1 {
		t.Fatalf("%d permission requests, want 1", len(o.Permissions))
	}
	diff := list(o.Permissions[0].ToolCall["content"])[0].(map[string]any)
	if diff["type"] != "diff" || diff["path"] != filepath.Join(r.dir, "main.go") || diff["oldText"] != mainGo || diff["newText"] != "package main\n\nfunc Greet() {}\n" {
		t.Errorf("the permission request shows %v", diff)
	}
	if len(o.Writes) != 1 || o.Writes[0].Path != filepath.Join(r.dir, "main.go") {
		t.Errorf("writes %+v, want main.go through fs/write_text_file", o.Writes)
	}
	if got := r.read("main.go"); got != "package main\n\nfunc Greet() {}\n" {
		t.Errorf("main.go = %q", got)
	}
	if !r.toldModel("The user accepted the change") {
		t.Error("the model was not told the change was applied")
	}
	r.replays(map[string]string{"main.go": mainGo}, "package main\n\nfunc Greet() {}\n")
}

// A rejected edit is not written, and the model is told.
func TestTSEditRejected(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, map[string]string{"main.go": mainGo}, renameTurns()...)
	o := r.play(append(r.init(true), step{"do": "prompt", "text": "Rename Hello to Greet", "answers": []string{"reject_once"}})...)
	if got := o.stop(t, 2); got != "end_turn" {
		t.Errorf("the prompt answered %s", got)
	}
	if len(o.Writes) != 0 || r.read("main.go") != mainGo {
		t.Errorf("writes %+v, main.go %q: a rejected change was written", o.Writes, r.read("main.go"))
	}
	if !r.toldModel("The user rejected the change to main.go") {
		t.Error("the model was not told of the rejection")
	}
}

// A shell command is asked with the policy's answers; allowed, it runs and
// its output is shown.
func TestTSShell(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, nil, shellTurns("echo hi")...)
	o := r.play(append(r.init(true), step{"do": "prompt", "text": "Say hi", "answers": []string{"allow_once"}})...)
	if got := o.stop(t, 2); got != "end_turn" {
		t.Errorf("the prompt answered %s", got)
	}
	if len(o.Permissions) != 1 || o.Permissions[0].ToolCall["kind"] != "execute" {
		t.Fatalf("permission requests %+v", o.Permissions)
	}
	var kinds []string
	for _, opt := range o.Permissions[0].Options {
		kinds = append(kinds, opt["kind"].(string))
	}
	if diff := cmp.Diff([]string{"allow_once", "allow_always", "allow_always", "reject_once"}, kinds); diff != "" {
		t.Errorf("option kinds (-want +got):\n%s", diff)
	}
	var output string
	for _, u := range o.Updates {
		if u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed" {
			output = list(u["content"])[0].(map[string]any)["content"].(map[string]any)["text"].(string)
		}
	}
	if output != "```\nExit code: 0\nOutput:\nhi\n```" {
		t.Errorf("the command's output is shown as %q", output)
	}
	if !r.toldModel(`Output:\nhi\n`) {
		t.Error("the model was not told the output")
	}
}

// session/cancel in the middle of the model's answer: the prompt answers
// cancelled.
func TestTSCancelMidStream(t *testing.T) {
	t.Parallel()
	slow := geminitest.Reply(geminitest.Thought("Thinking hard."), geminitest.Text("One"), geminitest.Text("Two"))
	slow.ChunkDelay = 10 * 60e9 // only the cancel ends it
	r := newTSRun(t, nil, slow)
	o := r.play(append(r.init(true), step{"do": "prompt", "text": "Think", "cancelOn": "agent_thought_chunk"})...)
	if got := o.stop(t, 2); got != "cancelled" {
		t.Errorf("the prompt answered %s, want cancelled", got)
	}
}

// A permission request the client never answers holds the turn; the cancel
// still ends it, and nothing is written.
func TestTSCancelUnanswered(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, map[string]string{"main.go": mainGo}, renameTurns()...)
	o := r.play(append(r.init(true), step{"do": "prompt", "text": "Rename", "answers": []string{"never"}, "cancelOn": "permission"})...)
	if got := o.stop(t, 2); got != "cancelled" {
		t.Errorf("the prompt answered %s, want cancelled", got)
	}
	if len(o.Writes) != 0 || r.read("main.go") != mainGo {
		t.Errorf("writes %+v: a change was written after the cancel", o.Writes)
	}
}

// The run reads the client's unsaved buffer: the diff is against it.
func TestTSUnsavedBuffer(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, map[string]string{"main.go": mainGo}, renameTurns()...)
	unsaved := "package main\n\n// Hello greets.\nfunc Hello() {}\n"
	plan := append(r.init(true), step{"do": "buffer", "path": filepath.Join(r.dir, "main.go"), "text": unsaved},
		step{"do": "prompt", "text": "Rename", "answers": []string{"allow_once"}})
	o := r.play(plan...)
	if got := o.stop(t, 3); got != "end_turn" {
		t.Errorf("the prompt answered %s", got)
	}
	if len(o.Writes) != 1 || !strings.Contains(o.Writes[0].Content, "// Hello greets.\nfunc Greet()") {
		t.Errorf("writes %+v, want the buffer's text changed", o.Writes)
	}
}

// A session outlives agentls: after a restart, session/list finds it,
// session/load tells its conversation again, and a prompt continues it.
func TestTSLoadSession(t *testing.T) {
	t.Parallel()
	r := newTSRun(t, nil, done("Paris."), done("Berlin."))
	plan := append(r.init(true),
		step{"do": "prompt", "text": "Capital of France?"},
		step{"do": "restart"},
		step{"do": "list", "cwd": r.dir},
		step{"do": "load", "cwd": r.dir},
		step{"do": "prompt", "text": "And of Germany?"})
	o := r.play(plan...)
	var newSession struct {
		SessionID string `json:"sessionId"`
	}
	mustDecode(t, o.Steps[1].Result, &newSession)
	var list struct {
		Sessions []struct {
			SessionID string `json:"sessionId"`
			Cwd       string `json:"cwd"`
			Title     string `json:"title"`
		} `json:"sessions"`
	}
	mustDecode(t, o.Steps[4].Result, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != newSession.SessionID || list.Sessions[0].Title != "Capital of France?" {
		t.Errorf("session/list answered %s, want %s", o.Steps[4].Result, newSession.SessionID)
	}
	if o.Steps[5].Error != nil {
		t.Fatalf("session/load: %+v", o.Steps[5].Error)
	}
	if diff := cmp.Diff([]string{"user_message_chunk", "agent_message_chunk"}, o.kinds(5)); diff != "" {
		t.Errorf("the conversation told again (-want +got):\n%s", diff)
	}
	if got := o.stop(t, 6); got != "end_turn" {
		t.Errorf("the follow-up answered %s", got)
	}
	if !r.toldModel("Capital of France?") || !r.toldModel("And of Germany?") {
		t.Error("the follow-up does not continue the conversation")
	}
}
