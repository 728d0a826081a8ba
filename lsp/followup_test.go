package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/workspace"
)

// TestRunFromAnswerDocument starts a run from an Explain answer's Markdown
// file (outside the workspace, in the cache directory), then from another
// file outside the workspace: neither is refused. The first works on the
// file and selection the answer was about, in the answered run's session;
// the second uses the workspace with no active file.
func TestRunFromAnswerDocument(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t,
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Hello returns a greeting; its name is vague."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Looked again."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Done."})),
	)
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	sel := protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4, Character: 35}}
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "Explain this", "uri": u, "range": sel, "action": "explain", "title": "Explain selection"}); err != nil {
		t.Fatal(err)
	}
	var shown protocol.ShowDocumentParams
	if err := json.Unmarshal(s.ed.WaitFor("the answer's document", isMethod(protocol.MethodWindowShowDocument)).Params, &shown); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 1)

	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "now fix it", "uri": shown.URI}); err != nil {
		t.Fatalf("a run from the answer's document: %v", err)
	}
	waitEnds(t, s.ed, 2)
	outside := workspace.URIFromPath(filepath.Join(t.TempDir(), "notes.txt"))
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "look around", "uri": outside,
		"range": protocol.Range{End: protocol.Position{Line: 1}}}); err != nil {
		t.Fatalf("a run from a file outside the workspace: %v", err)
	}
	waitEnds(t, s.ed, 3)

	reqs := s.gem.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model calls = %d, want 3", len(reqs))
	}
	// The follow-up continues the answered run's session: its model has
	// the explanation in its conversation, and works on the same file and
	// selection.
	followUp := reqs[1]
	history, _ := json.Marshal(followUp.Contents[:len(followUp.Contents)-1])
	for _, want := range []string{"Explain this", "Hello returns a greeting; its name is vague."} {
		if !strings.Contains(string(history), want) {
			t.Errorf("the follow-up's conversation lacks %q:\n%s", want, history)
		}
	}
	task := userText(followUp.Contents[len(followUp.Contents)-1])
	for _, want := range []string{"now fix it", "Active file: main.go", `func Hello() string { return "hi" }`} {
		if !strings.Contains(task, want) {
			t.Errorf("the follow-up's task lacks %q:\n%s", want, task)
		}
	}
	elsewhere := firstUserText(reqs[2])
	if !strings.Contains(elsewhere, "look around") || strings.Contains(elsewhere, "Active file") || strings.Contains(elsewhere, "earlier answer") {
		t.Errorf("a run from outside the workspace got the task:\n%s", elsewhere)
	}
}

// firstUserText is the text of a model request's first content: the task.
func firstUserText(req geminitest.Request) string {
	return userText(req.Contents[0])
}

// userText is the text of a content's parts.
func userText(c *genai.Content) string {
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// TestFollowUpFromAnswerInASession: "Follow up…" from an answer's document
// names the answered run's session; its model has the answer in its
// conversation, so the task does not quote it again. Naming another
// session, the task quotes the answer (that conversation lacks it).
func TestFollowUpFromAnswerInASession(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	const said = "Hello returns a greeting; its name is vague."
	s := newSession(t,
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": said})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Elsewhere."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Renamed."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Noted."})),
	)
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	sel := protocol.Range{Start: protocol.Position{Line: 4}, End: protocol.Position{Line: 4, Character: 35}}
	var explain, other, res contract.RunResult
	if err := execute(ctx, s, contract.CommandRun, map[string]any{"prompt": "Explain this", "uri": u, "range": sel, "action": "explain", "title": "Explain selection"}, &explain); err != nil {
		t.Fatal(err)
	}
	var shown protocol.ShowDocumentParams
	if err := json.Unmarshal(s.ed.WaitFor("the answer's document", isMethod(protocol.MethodWindowShowDocument)).Params, &shown); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 1)
	if err := execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "something else"}, &other); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 2)
	if explain.SessionID == "" || other.SessionID == "" || other.SessionID == explain.SessionID {
		t.Fatalf("sessions %q and %q, want two", explain.SessionID, other.SessionID)
	}

	if err := execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "now rename it", URI: shown.URI, SessionID: explain.SessionID}, &res); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 3)
	if err := execute(ctx, s, contract.CommandRun, contract.RunArgs{Prompt: "note it", URI: shown.URI, SessionID: other.SessionID}, &res); err != nil {
		t.Fatal(err)
	}
	waitEnds(t, s.ed, 4)

	reqs := s.gem.Requests()
	if len(reqs) != 4 {
		t.Fatalf("model calls = %d, want 4", len(reqs))
	}
	same := reqs[2]
	history, _ := json.Marshal(same.Contents[:len(same.Contents)-1])
	if !strings.Contains(string(history), said) {
		t.Errorf("the follow-up's conversation lacks the answer:\n%s", history)
	}
	if task := userText(same.Contents[len(same.Contents)-1]); !strings.Contains(task, "now rename it") || strings.Contains(task, "earlier answer") {
		t.Errorf("in the answer's own session, the task is:\n%s", task)
	}
	if task := userText(reqs[3].Contents[len(reqs[3].Contents)-1]); !strings.Contains(task, "This follows your earlier answer (Explain selection):\n"+said) {
		t.Errorf("in another session, the task is:\n%s", task)
	}
}
