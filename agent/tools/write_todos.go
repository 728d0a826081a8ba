package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
)

//go:embed write_todos.md
var writeTodosDoc string

// Todo statuses.
const (
	todoPending    = "pending"
	todoInProgress = "in_progress"
	todoCompleted  = "completed"
	todoCancelled  = "cancelled"
)

type todoArg struct {
	Description string `json:"description" jsonschema:"what the step does"`
	Status      string `json:"status" jsonschema:"pending, in_progress, completed or cancelled"`
}

type writeTodosArgs struct {
	Todos []todoArg `json:"todos" jsonschema:"the whole plan, every step, in order"`
}

// writeTodosTool is write_todos. It implements agent.Planner: the
// tool_result of a call carries the plan, so the editor can show it.
type writeTodosTool struct{ *agent.Func[writeTodosArgs] }

func writeTodos() agent.Tool {
	return writeTodosTool{agent.NewFunc("write_todos", writeTodosDoc, func(ctx context.Context, call *agent.Call, a writeTodosArgs) (agent.Result, error) {
		inProgress, done := 0, 0
		for i, t := range a.Todos {
			if strings.TrimSpace(t.Description) == "" {
				return agent.Errorf("todo %d has no description", i+1), nil
			}
			switch t.Status {
			case todoInProgress:
				inProgress++
			case todoCompleted, todoCancelled:
				done++
			case todoPending:
			default:
				return agent.Errorf("todo %d has status %q; use pending, in_progress, completed or cancelled", i+1, t.Status), nil
			}
		}
		if inProgress > 1 {
			return agent.Errorf("%d todos are in_progress; work on one step at a time", inProgress), nil
		}
		if len(a.Todos) == 0 {
			return agent.Result{Output: "The plan is cleared.", Display: "Plan cleared"}, nil
		}
		summary := planSummary(a.Todos, done)
		return agent.Result{Output: "The plan is updated: " + summary + ".", Display: "Plan: " + summary}, nil
	}).WithKind(agent.KindRead)}
}

// planSummary is "2/5 done — <the step in progress>".
func planSummary(todos []todoArg, done int) string {
	s := fmt.Sprintf("%d/%d done", done, len(todos))
	for _, t := range todos {
		if t.Status == todoInProgress {
			return s + " — " + t.Description
		}
	}
	return s
}

// Plan implements agent.Planner.
func (writeTodosTool) Plan(args json.RawMessage) []agent.Todo {
	var a writeTodosArgs
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	todos := make([]agent.Todo, len(a.Todos))
	for i, t := range a.Todos {
		todos[i] = agent.Todo{Description: t.Description, Status: t.Status}
	}
	return todos
}

func (writeTodosTool) Describe(args json.RawMessage) string { return "Updating the plan" }
