package tools_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

func TestWriteTodos(t *testing.T) {
	t.Parallel()
	todos := []any{
		map[string]any{"description": "Read the code", "status": "completed"},
		map[string]any{"description": "Rename Hello", "status": "in_progress"},
		map[string]any{"description": "Run the tests", "status": "pending"},
		map[string]any{"description": "Old idea", "status": "cancelled"},
		map[string]any{"description": "Update docs", "status": "pending"},
	}
	tests := []struct {
		name    string
		todos   []any
		want    map[string]any
		display string
		plan    []agent.Todo // on the tool_result event
	}{{
		name:    "plan",
		todos:   todos,
		want:    output("The plan is updated: 2/5 done — Rename Hello."),
		display: "Plan: 2/5 done — Rename Hello",
		plan: []agent.Todo{todo("Read the code", "completed"), todo("Rename Hello", "in_progress"), todo("Run the tests", "pending"),
			todo("Old idea", "cancelled"), todo("Update docs", "pending")},
	}, {
		name:    "nothing in progress",
		todos:   []any{map[string]any{"description": "a", "status": "pending"}},
		want:    output("The plan is updated: 0/1 done."),
		display: "Plan: 0/1 done",
		plan:    []agent.Todo{todo("a", "pending")},
	}, {
		name:    "cleared",
		todos:   []any{},
		want:    output("The plan is cleared."),
		display: "Plan cleared",
	}, {
		name: "two in progress",
		todos: []any{map[string]any{"description": "a", "status": "in_progress"},
			map[string]any{"description": "b", "status": "in_progress"}},
		want: toolErr("2 todos are in_progress; work on one step at a time"),
	}, {
		name:  "unknown status",
		todos: []any{map[string]any{"description": "a", "status": "done"}},
		want:  toolErr(`todo 1 has status "done"; use pending, in_progress, completed or cancelled`),
	}, {
		name:  "no description",
		todos: []any{map[string]any{"description": " ", "status": "pending"}},
		want:  toolErr("todo 1 has no description"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{calls: []*genai.FunctionCall{call("write_todos", map[string]any{"todos": tt.todos})}})
			if diff := cmp.Diff([]reply{{Name: "write_todos", Response: tt.want}}, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
			for _, ev := range tr.events {
				if ev.Type == agent.EventToolResult && ev.Call.Name == "write_todos" {
					if ev.Result.Display != tt.display {
						t.Errorf("display = %q, want %q", ev.Result.Display, tt.display)
					}
					if diff := cmp.Diff(tt.plan, ev.Todos, cmp.Comparer(func(a, b []agent.Todo) bool { return len(a)+len(b) == 0 || cmp.Equal(a, b) })); diff != "" {
						t.Errorf("plan on tool_result (-want +got):\n%s", diff)
					}
				}
			}
		})
	}
}

func todo(description, status string) agent.Todo {
	return agent.Todo{Description: description, Status: status}
}
