package lsp

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// TestAnswerInto checks what a follow-up run's task takes from the answer
// it follows: the selection always, the answer's text only when the run
// does not continue the answered run's session (whose conversation holds
// it), cut to followUpChars.
func TestAnswerInto(t *testing.T) {
	t.Parallel()
	sel := &agent.Selection{StartLine: 3, EndLine: 4, Text: "func Sum() {}"}
	long := strings.Repeat("é", followUpChars+10)

	quoted := agent.Task{Prompt: "now fix it"}
	(&answer{title: "Explain selection", selection: sel, text: "  Sum is fine.\n"}).into(&quoted)
	if want := "now fix it\n\nThis follows your earlier answer (Explain selection):\nSum is fine."; quoted.Prompt != want || quoted.Selection != sel {
		t.Errorf("without a session: %q, selection %v; want %q and the answer's selection", quoted.Prompt, quoted.Selection, want)
	}

	continued := agent.Task{Prompt: "now fix it"}
	(&answer{title: "Explain selection", sessionID: "s-1", selection: sel, text: "Sum is fine."}).into(&continued)
	if continued.Prompt != "now fix it" || continued.Selection != sel {
		t.Errorf("in the answer's session: %q, selection %v; want the prompt alone and the answer's selection", continued.Prompt, continued.Selection)
	}

	cut := agent.Task{Prompt: "go on"}
	(&answer{title: "t", text: long}).into(&cut)
	if n := len([]rune(cut.Prompt)); !strings.HasSuffix(cut.Prompt, "…") || n > followUpChars+60 {
		t.Errorf("a long answer is quoted with %d characters", n)
	}

	var none *answer
	same := agent.Task{Prompt: "x"}
	none.into(&same)
	if same.Prompt != "x" || same.Selection != nil {
		t.Errorf("a nil answer changed the task: %+v", same)
	}
}
