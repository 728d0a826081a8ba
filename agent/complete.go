package agent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"
)

// CompleteTaskName is the name of the tool that ends a run.
const CompleteTaskName = "complete_task"

//go:embed complete_task.md
var completeTaskDoc string

// completeTool is complete_task: the one way a run reaches its goal. Its
// arguments are the run's result, checked against the agent's output schema.
type completeTool struct {
	decl       *genai.FunctionDeclaration
	resolved   *jsonschema.Resolved
	structured bool
	before     func(ctx context.Context, result string) (string, error)

	mu   sync.Mutex
	done bool
	out  string
}

func newCompleteTool(schema *jsonschema.Schema) (*completeTool, error) {
	t := &completeTool{structured: schema != nil}
	if schema == nil {
		schema = &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"result": {Type: "string", Description: "Your final answer for the user: what you did or found, in Markdown."},
			},
			Required: []string{"result"},
		}
	}
	resolved, err := schema.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("agent: output schema: %w", err)
	}
	t.resolved = resolved
	t.decl = &genai.FunctionDeclaration{Name: CompleteTaskName, Description: completeTaskDoc, ParametersJsonSchema: schema}
	return t, nil
}

func (t *completeTool) Declaration() *genai.FunctionDeclaration { return t.decl }

func (t *completeTool) Run(ctx context.Context, call *Call) (Result, error) {
	var instance any
	if err := json.Unmarshal(call.Args, &instance); err != nil {
		return Errorf("invalid arguments for complete_task: %v", err), nil
	}
	if err := t.resolved.Validate(instance); err != nil {
		return Errorf("the result does not match the required output: %v. Call complete_task again with a corrected result.", err), nil
	}
	out := string(call.Args)
	if !t.structured {
		out = instance.(map[string]any)["result"].(string)
	}
	if t.before != nil {
		resume := call.UserWait()
		feedback, err := t.before(ctx, out)
		resume()
		if err != nil {
			return Result{}, err
		}
		if feedback != "" {
			return Result{Output: feedback, IsError: true}, nil
		}
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.done, t.out = true, out
	return Result{Output: "Task complete.", Display: "Done"}, nil
}

// result returns the accepted result, if complete_task succeeded.
func (t *completeTool) result() (string, bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out, t.done
}
