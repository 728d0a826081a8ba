package agent_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent"
)

type fuzzArgs struct {
	FilePath string `json:"file_path"`
	Offset   int    `json:"offset,omitempty"`
	Limit    int    `json:"limit,omitempty"`
	Flags    []struct {
		Name string `json:"name"`
	} `json:"flags,omitempty"`
}

// FuzzToolArgs feeds arbitrary argument bytes to a typed tool: it must never
// panic, and must either run with arguments that match its schema or answer
// with an error result.
func FuzzToolArgs(f *testing.F) {
	for _, seed := range []string{
		`{"file_path":"a.go"}`, `{"file_path":"a.go","offset":3,"limit":10}`, `{}`, `null`, `[]`, `"x"`,
		`{"file_path":3}`, `{"file_path":"a","offset":1.5}`, `{"file_path":"a","extra":true}`,
		`{"file_path":"a","flags":[{"name":"x"},{}]}`, `{"file_path":"\u0000"}`, `{"file_path":"a"`, ``,
	} {
		f.Add([]byte(seed))
	}
	ran := 0
	tool := agent.NewFunc("read_file", "Read.", func(ctx context.Context, call *agent.Call, a fuzzArgs) (agent.Result, error) {
		ran++
		return agent.Result{Output: a.FilePath}, nil
	})
	f.Fuzz(func(t *testing.T, args []byte) {
		before := ran
		res, err := tool.Run(context.Background(), &agent.Call{Name: "read_file", Args: args})
		if err != nil {
			t.Fatalf("tool returned a Go error for bad arguments: %v", err)
		}
		if ran == before && !res.IsError {
			t.Fatalf("arguments %q neither ran nor gave an error result", args)
		}
		if ran > before {
			// It ran: the arguments were an object with a string file_path.
			var m map[string]any
			if json.Unmarshal(args, &m) != nil {
				t.Fatalf("ran with non-object arguments %q", args)
			}
			if _, ok := m["file_path"].(string); !ok {
				t.Fatalf("ran without a string file_path: %q", args)
			}
		}
	})
}
