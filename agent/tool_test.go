package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

type planArgs struct {
	Steps []struct {
		Name string `json:"name"`
	} `json:"steps"`
	Note *string `json:"note,omitempty"`
}

// Slices and pointers get a single JSON type in tool schemas, not
// ["null", T].
func TestFuncSchemaHasSingleTypes(t *testing.T) {
	t.Parallel()
	tool := agent.NewFunc("plan", "Plan.", func(ctx context.Context, call *agent.Call, a planArgs) (agent.Result, error) {
		return agent.Result{}, nil
	})
	b, err := json.Marshal(tool.Declaration().ParametersJsonSchema)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); strings.Contains(s, `"null"`) || !strings.Contains(s, `"steps":{"type":"array"`) {
		t.Errorf("schema = %s", s)
	}
}
