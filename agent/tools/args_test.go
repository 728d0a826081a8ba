package tools_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// Arguments that do not fit a tool's schema come back to the model as an
// error naming the problem; the tool does not run.
func TestBadArguments(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		call    *genai.FunctionCall
		display string // of the tool_call event: the path when it decodes
		// mention are parts of the error message: the tool and what is wrong.
		mention []string
	}{
		{
			name:    "read_file path is a number",
			call:    call("read_file", map[string]any{"file_path": 3}),
			display: "",
			mention: []string{"invalid arguments for read_file", "file_path", "string"},
		}, {
			name:    "read_file offset is a string",
			call:    call("read_file", map[string]any{"file_path": "c.txt", "offset": "2"}),
			display: "Reading c.txt",
			mention: []string{"invalid arguments for read_file", "offset", "integer"},
		}, {
			name:    "read_file offset is fractional",
			call:    call("read_file", map[string]any{"file_path": "c.txt", "offset": 1.5}),
			display: "Reading c.txt",
			mention: []string{"invalid arguments for read_file", "offset", "integer"},
		}, {
			name:    "read_file without path",
			call:    call("read_file", map[string]any{}),
			display: "",
			mention: []string{"invalid arguments for read_file", "file_path"},
		}, {
			name:    "read_file without arguments",
			call:    call("read_file", nil),
			display: "",
			mention: []string{"invalid arguments for read_file", "file_path"},
		}, {
			name:    "list_directory path is a list",
			call:    call("list_directory", map[string]any{"dir_path": []any{"."}}),
			display: "",
			mention: []string{"invalid arguments for list_directory", "dir_path"},
		}, {
			name:    "replace path is a number",
			call:    call("replace", map[string]any{"file_path": 3, "old_string": "return 1", "new_string": "return 2"}),
			display: "",
			mention: []string{"invalid arguments for replace", "file_path", "string"},
		}, {
			name:    "replace without new_string",
			call:    call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1"}),
			display: "Editing b.go",
			mention: []string{"invalid arguments for replace", "new_string"},
		}, {
			name:    "replace count is a string",
			call:    call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2", "expected_replacements": "all"}),
			display: "Editing b.go",
			mention: []string{"invalid arguments for replace", "expected_replacements"},
		}, {
			name:    "write_file path is a number",
			call:    call("write_file", map[string]any{"file_path": 3, "content": "x"}),
			display: "",
			mention: []string{"invalid arguments for write_file", "file_path", "string"},
		}, {
			name:    "write_file without content",
			call:    call("write_file", map[string]any{"file_path": "new.go"}),
			display: "Writing new.go",
			mention: []string{"invalid arguments for write_file", "content"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{calls: []*genai.FunctionCall{tt.call}})
			if tr.end.Reason != agent.StopGoal {
				t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, agent.StopGoal)
			}
			rs := tr.replies(t)
			if len(rs) != 1 {
				t.Fatalf("got %d function responses, want 1: %v", len(rs), rs)
			}
			msg, ok := rs[0].Response["error"].(string)
			if !ok || len(rs[0].Response) != 1 {
				t.Fatalf("response = %v, want only an error", rs[0].Response)
			}
			for _, m := range tt.mention {
				if !strings.Contains(msg, m) {
					t.Errorf("error %q does not mention %q", msg, m)
				}
			}
			if diff := cmp.Diff([]step{called(tt.call.Name, tt.display), failed(tt.call.Name, "")}, tr.steps()); diff != "" {
				t.Errorf("events (-want +got):\n%s", diff)
			}
			if len(tr.changes) != 0 {
				t.Errorf("the Proposer got %v, want nothing", tr.changes)
			}
		})
	}
}
