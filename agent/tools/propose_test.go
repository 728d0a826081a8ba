package tools_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// A Proposer that fails stops the run: the tool returns the error, the run
// ends, and the model is not called again.
func TestProposerError(t *testing.T) {
	t.Parallel()
	replaceB := call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2"})
	bEdit := edit{Path: "/ws/b.go", Name: "b.go", Added: 1, Deleted: 1}
	tests := []struct {
		name   string
		script script
		end    agent.RunEnd
		steps  []step // tool_call and edit events; tool_result is checked apart
	}{{
		// The run's context is still live: the harness cannot tell this from
		// any other failure.
		name:   "context.Canceled while the run goes on",
		script: script{answers: []answer{{err: context.Canceled}}, calls: []*genai.FunctionCall{replaceB}},
		end:    agent.RunEnd{Reason: agent.StopError, Error: "tool replace: context canceled", Turns: 1},
		steps:  []step{called("replace", "Editing b.go"), proposed("replace", bEdit), withdrawn("replace", bEdit, "context canceled")},
	}, {
		name:   "the editor connection fails",
		script: script{answers: []answer{{err: errors.New("connection lost")}}, calls: []*genai.FunctionCall{replaceB}},
		end:    agent.RunEnd{Reason: agent.StopError, Error: "tool replace: connection lost", Turns: 1},
		steps:  []step{called("replace", "Editing b.go"), proposed("replace", bEdit), withdrawn("replace", bEdit, "connection lost")},
	}, {
		name:   "run cancelled while the user decides",
		script: script{answers: []answer{{block: true}}, calls: []*genai.FunctionCall{replaceB}, cancelOn: agent.EventEditProposed},
		end:    agent.RunEnd{Reason: agent.StopAborted, Error: "cancelled", Turns: 1},
		steps:  []step{called("replace", "Editing b.go"), proposed("replace", bEdit), withdrawn("replace", bEdit, "context canceled")},
	}, {
		name: "run cancelled while the user decides on a new file",
		script: script{answers: []answer{{block: true}}, cancelOn: agent.EventEditProposed,
			calls: []*genai.FunctionCall{call("write_file", map[string]any{"file_path": "new.go", "content": "package x\n"})}},
		end: agent.RunEnd{Reason: agent.StopAborted, Error: "cancelled", Turns: 1},
		steps: []step{
			called("write_file", "Writing new.go"),
			proposed("write_file", edit{Path: "/ws/new.go", Name: "new.go", Added: 1, Create: true}),
			withdrawn("write_file", edit{Path: "/ws/new.go", Name: "new.go", Added: 1, Create: true}, "context canceled"),
		},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, tt.script)
			if diff := cmp.Diff(tt.end, tr.end); diff != "" {
				t.Errorf("run end (-want +got):\n%s", diff)
			}
			if n := len(tr.model.requests()); n != 1 {
				t.Errorf("the model was called %d times, want 1", n)
			}
			if len(tr.changes) != 1 {
				t.Errorf("the Proposer got %d changes, want 1", len(tr.changes))
			}
			var steps []step
			results := 0
			for _, s := range tr.steps() {
				if s.Type == agent.EventToolResult {
					results++
					continue
				}
				steps = append(steps, s)
			}
			// The proposal is reported withdrawn, so no display waits for it.
			if diff := cmp.Diff(tt.steps, steps); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			// Terminal events are always delivered, failures included.
			if results != 1 {
				t.Errorf("got %d tool_result events, want 1", results)
			}
			if last := tr.events[len(tr.events)-1]; last.Type != agent.EventRunEnd {
				t.Errorf("last event is %s, want %s", last.Type, agent.EventRunEnd)
			}
		})
	}
}

// A run without a Proposer is read-only: the model is not offered the edit
// tools, and a call to one is answered as an unknown tool.
func TestReadOnly(t *testing.T) {
	t.Parallel()
	const unknown = "; the tools you can call are: complete_task, glob, grep_search, list_directory, read_file, write_todos"
	tests := []struct {
		name     string
		readOnly bool
		calls    []*genai.FunctionCall
		decls    []string // the tools the model is offered
		replies  []reply
	}{{
		name:     "read-only run",
		readOnly: true,
		calls: []*genai.FunctionCall{
			call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2"}),
			call("write_file", map[string]any{"file_path": "new.go", "content": "package x\n"}),
			call("read_file", map[string]any{"file_path": "c.txt", "limit": 1}),
		},
		decls: []string{"read_file", "list_directory", "glob", "grep_search", "write_todos", "complete_task"},
		replies: []reply{
			{Name: "replace", Response: toolErr(`unknown tool "replace"` + unknown)},
			{Name: "write_file", Response: toolErr(`unknown tool "write_file"` + unknown)},
			{Name: "read_file", Response: output("[Showing lines 1-1 of 5. To read more, call read_file with offset 1.]\none\n")},
		},
	}, {
		name:     "run with a Proposer",
		readOnly: false,
		calls:    []*genai.FunctionCall{call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2"})},
		decls:    []string{"read_file", "list_directory", "glob", "grep_search", "write_todos", "replace", "write_file", "run_shell_command", "save_memory", "complete_task"},
		replies:  []reply{{Name: "replace", Response: output("The user accepted the change; b.go is updated (+1 \u22121).")}},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{readOnly: tt.readOnly, calls: tt.calls})
			if tr.end.Reason != agent.StopGoal {
				t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, agent.StopGoal)
			}
			var decls []string
			for _, tool := range tr.model.requests()[0].Config.Tools {
				for _, d := range tool.FunctionDeclarations {
					decls = append(decls, d.Name)
				}
			}
			if diff := cmp.Diff(tt.decls, decls); diff != "" {
				t.Errorf("declarations (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.replies, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
		})
	}
}

// withdrawn is the edit_decided event of a proposal that ended without an
// answer.
func withdrawn(tool string, e edit, msg string) step {
	return decided(tool, e, agent.OutcomeWithdrawn, msg)
}

// A change names the run and the tool call that propose it, so that a
// front end can show the proposal on the call (the ACP front end asks on
// it): the model's call id when it gave one, else the harness's.
func TestChangesNameTheirCall(t *testing.T) {
	t.Parallel()
	withID := call("write_file", map[string]any{"file_path": "new1.txt", "content": "a\n"})
	withID.ID = "w1"
	tr := play(t, script{calls: []*genai.FunctionCall{withID, call("write_file", map[string]any{"file_path": "new2.txt", "content": "b\n"})}})
	var got []string
	for _, c := range tr.changes {
		got = append(got, c.Name+" "+c.RunID+" "+c.CallID)
	}
	slices.Sort(got)
	if diff := cmp.Diff([]string{"new1.txt test w1", "new2.txt test test#1-1"}, got); diff != "" {
		t.Errorf("changes (-want +got):\n%s", diff)
	}
}
