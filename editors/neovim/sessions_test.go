package neovim_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// Conversations in Neovim: follow-ups (:AgentFollow, :AgentRun!, a pick in
// :AgentSessions) send the model the conversation so far; :AgentRuns
// shows what each run cost; :AgentRevert puts the first run's change back.
func TestSessions(t *testing.T) {
	eachNeovim(t, testSessions)
}

func testSessions(t *testing.T, nv neovim) {
	done := func(result string) geminitest.Turn {
		return geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": result}))
	}
	s := scenario{
		script: "sessions",
		files:  map[string]string{"main.go": mainGo},
		turns:  append(renameTurns("Renamed."), done("It prints hi."), done("Il dit salut."), done("Done.")),
	}.run(t, nv)
	r := s.res
	calls := s.modelCalls()
	if len(calls) != 6 {
		t.Fatalf("%d model calls, want 6\n%s", len(calls), s.logs)
	}
	// Each follow-up's request carries the conversation so far: every
	// content of the run before it, that run's last answer and result, and
	// its own task.
	for i, task := range map[int]string{3: "what does it print now?", 4: "and in French?", 5: "one more"} {
		prev, now := calls[i-1].Contents, calls[i].Contents
		if len(now) != len(prev)+2 {
			t.Errorf("call %d has %d contents, the one before %d", i, len(now), len(prev))
			continue
		}
		last := now[len(now)-1].Parts
		if !strings.Contains(last[len(last)-1].Text, task) {
			t.Errorf("call %d ends with %+v, want the task %q", i, last[len(last)-1], task)
		}
	}
	if !strings.Contains(calls[3].Contents[0].Parts[0].Text, "rename the function Hello to Greet") {
		t.Errorf("the follow-up does not start with the first task: %+v", calls[3].Contents[0])
	}

	var ids []string
	r.get(t, "run_sessions", &ids)
	if len(ids) != 4 || ids[0] == "" || ids[1] != ids[0] || ids[2] != ids[0] || ids[3] != ids[0] {
		t.Errorf("the runs' sessions: %q", ids)
	}
	var items []string
	r.get(t, "session_items", &items)
	if len(items) != 1 || !strings.Contains(items[0], ids[0]) || !strings.Contains(items[0], "3 runs, $0.") {
		t.Errorf(":AgentSessions offered %q", items)
	}
	var lines []string
	r.get(t, "runs_lines", &lines)
	if len(lines) != 4 || !strings.Contains(lines[0], "ended: goal") || !strings.Contains(lines[0], "$0.") {
		t.Errorf(":AgentRuns lines = %q", lines)
	}

	var original, renamed string
	r.get(t, "original", &original)
	r.get(t, "renamed", &renamed)
	if !strings.Contains(renamed, "Greet()") {
		t.Fatalf("the first run did not rename:\n%s", renamed)
	}
	var revert struct {
		Outcome string `json:"outcome"`
		Summary string `json:"summary"`
		Files   []struct {
			Name    string `json:"name"`
			Outcome string `json:"outcome"`
		} `json:"files"`
	}
	r.get(t, "revert", &revert)
	if revert.Outcome != "applied" || len(revert.Files) != 1 || revert.Files[0].Outcome != "reverted" {
		t.Errorf("revert = %+v", revert)
	}
	if r.Buffer != original {
		t.Errorf("after the revert the buffer is:\n%s\nwant:\n%s", r.Buffer, original)
	}
}
