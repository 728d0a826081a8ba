package neovim_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// The parts that need no server (tests/unit.lua), and :help agentls.
func TestUnit(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{script: "unit"}.run(t, nv)
		var lines []string
		s.res.get(t, "runs_lines", &lines)
		if len(lines) != 1 || !strings.Contains(lines[0], "main-1") || !strings.Contains(lines[0], "ended: goal") {
			t.Errorf(":AgentRuns lines = %q", lines)
		}
		var help struct {
			Name  string   `json:"name"`
			Lines []string `json:"lines"`
		}
		s.res.get(t, "help", &help)
		if filepath.Base(help.Name) != "agentls.txt" || !strings.Contains(strings.Join(help.Lines, "\n"), "*agentls-setup*") {
			t.Errorf(":help agentls-setup opened %q", help.Name)
		}
	})
}

// Runs started before the client is ready, without a file, and with a
// selection: one client for the workspace, even after the answers are
// shown (window/showDocument opens them outside the workspace).
func TestContext(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "context",
			files:  map[string]string{"main.go": mainGo},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("read_file", map[string]any{"file_path": "other.go"})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "A package clause."})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Hello!"})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It returns hi."})),
			},
		}.run(t, nv)
		var first, second, third runInfo
		var ready bool
		var clients int
		var shown []string
		s.res.get(t, "first", &first)
		s.res.get(t, "second", &second)
		s.res.get(t, "third", &third)
		s.res.get(t, "ready_at_run", &ready)
		s.res.get(t, "clients", &clients)
		s.res.get(t, "shown", &shown)
		if first.Result != "A package clause." || second.Result != "Hello!" || third.Result != "It returns hi." {
			t.Errorf("runs: %+v, %+v, %+v", first, second, third)
		}
		if ready {
			t.Error("the client was ready before the first run: the test does not test the wait")
		}
		if clients != 1 {
			t.Errorf("%d clients for one workspace", clients)
		}
		if len(shown) != 3 || !strings.Contains(strings.Join(shown, " "), "/answers/") {
			t.Errorf("answers shown: %q", shown)
		}
		calls := s.modelCalls()
		if len(calls) != 4 {
			t.Fatalf("model calls = %d", len(calls))
		}
		text := func(r geminitest.Request) string {
			var b strings.Builder
			for _, c := range r.Contents {
				for _, p := range c.Parts {
					b.WriteString(p.Text)
				}
			}
			return b.String()
		}
		// The run started before the client was ready read the unsaved buffer.
		if resp := s.functionResponses(t, 1); !strings.Contains(resp, "package other // unsaved") {
			t.Errorf("read_file of the new, unsaved other.go gave %s", resp)
		}
		if got := text(calls[2]); !strings.Contains(got, "say hello") || strings.Contains(got, "Active file") {
			t.Errorf("the unnamed buffer's task:\n%s", got)
		}
		// The selection, sent as a UTF-16 range, is exactly what was selected.
		got := text(calls[3])
		if !strings.Contains(got, "explain this") || !strings.Contains(got, "main.go") || !strings.Contains(got, "Hello() string") ||
			strings.Contains(got, "func Hello() string") {
			t.Errorf("the selection's task:\n%s", got)
		}
	})
}

// A run with a subagent: when it ends, no subagent is left running (in the
// run table, the statusline, :AgentRuns or :AgentCancel's completion).
func TestSubagent(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "subagent",
			files:  map[string]string{"main.go": mainGo},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("codebase_investigator", map[string]any{"objective": "find where Hello is declared"})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"summary": "Hello is declared in main.go.",
					"exploration_trace": []any{"read main.go"}, "relevant_paths": []any{"main.go"}})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "In main.go."})),
			},
		}.run(t, nv)
		r := s.res
		var ids, complete, lines []string
		var subs []struct {
			ID, Agent, State string
		}
		var status string
		var running int
		r.get(t, "run_ids", &ids)
		r.get(t, "subagents", &subs)
		r.get(t, "status_after", &status)
		r.get(t, "running", &running)
		r.get(t, "complete", &complete)
		r.get(t, "runs_lines", &lines)
		if len(ids) != 1 || len(subs) != 1 || subs[0].Agent != "codebase_investigator" || subs[0].State != "done" {
			t.Errorf("runs %q, subagents %+v", ids, subs)
		}
		if status != "" || running != 0 || len(complete) != 0 || len(lines) != 1 {
			t.Errorf("after the run: status %q, %d running, :AgentCancel completes %q, :AgentRuns %q", status, running, complete, lines)
		}
	})
}
