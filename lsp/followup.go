package lsp

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/workspace"
)

// keptAnswers bounds how many text answers a server remembers for
// follow-up runs.
const keptAnswers = 32

// followUpChars bounds how much of an earlier answer a follow-up run's
// prompt quotes.
const followUpChars = 4000

// An answer is a run's text answer, kept so that a run started from its
// Markdown file (the natural "now fix it" after an explanation) works on
// what the answer was about.
type answer struct {
	runID, title string
	sessionID    string // the answered run's session, "" for none
	file         string // the answered run's active file (absolute), if any
	selection    *agent.Selection
	text         string
}

// answers are the latest text answers of a server.
type answers struct {
	mu   sync.Mutex
	byID map[string]answer
	ids  []string // oldest first
}

func (as *answers) add(a answer) {
	as.mu.Lock()
	defer as.mu.Unlock()
	if as.byID == nil {
		as.byID = make(map[string]answer)
	}
	as.byID[a.runID] = a
	as.ids = append(as.ids, a.runID)
	if len(as.ids) > keptAnswers {
		delete(as.byID, as.ids[0])
		as.ids = as.ids[1:]
	}
}

func (as *answers) get(runID string) (answer, bool) {
	as.mu.Lock()
	defer as.mu.Unlock()
	a, ok := as.byID[runID]
	return a, ok
}

// remember keeps r's text answer for follow-up runs.
func (r *liveRun) remember(text string) {
	a := answer{runID: r.spec.h.id, title: r.title(), selection: r.spec.task.Selection, text: text}
	if r.spec.session != nil {
		a.sessionID = r.spec.session.ID()
	}
	if f := r.spec.task.File; f != "" {
		a.file = filepath.Join(r.spec.root, filepath.FromSlash(f))
	}
	r.s.answers.add(a)
}

// followUp handles a run whose active file is outside the workspace
// folders (an answer's Markdown file, a file VS Code opened from
// elsewhere): the run uses the workspace instead of failing. From an
// answer's file it takes the answered run's file and selection, and
// continues its session (the model has the answer in its conversation)
// unless the command names another; in another session, or without one,
// the task quotes the answer. Other arguments are returned as they are.
func (s *Server) followUp(ws *workspace.Workspace, args contract.RunArgs) (contract.RunArgs, *answer) {
	if args.URI == "" {
		return args, nil
	}
	path, err := workspace.PathFromURI(args.URI)
	if err != nil {
		return args, nil // taskFor says what is wrong with it
	}
	if _, ok := ws.RootFor(path); ok {
		return args, nil
	}
	s.log.Info("the active file is outside the workspace folders: the run uses the workspace", "file", path)
	args.URI, args.Range, args.Diagnostics = "", nil, nil
	a, ok := s.answerAt(path)
	if !ok {
		return args, nil
	}
	if _, ok := ws.RootFor(a.file); ok && a.file != "" {
		args.URI = workspace.URIFromPath(a.file)
	} else {
		a.file, a.selection = "", nil
	}
	switch {
	case a.sessionID == "":
		// The answered run kept no conversation: the task quotes the answer.
	case args.SessionID == "":
		args.SessionID = a.sessionID
	case args.SessionID != a.sessionID:
		a.sessionID = "" // another conversation: the task quotes the answer
	}
	// (The command named the answered run's session, as "Follow up…" from
	// the answer does: its conversation holds the answer.)
	return args, &a
}

// answerAt finds the answer whose Markdown file is path.
func (s *Server) answerAt(path string) (answer, bool) {
	dir, err := s.cacheDir()
	if err != nil || filepath.Dir(path) != filepath.Join(dir, "answers") || filepath.Ext(path) != ".md" {
		return answer{}, false
	}
	return s.answers.get(strings.TrimSuffix(filepath.Base(path), ".md"))
}

// into puts the answered run's selection into a follow-up run's task, and
// the answer when the run does not continue the answered run's session. A
// nil answer changes nothing.
func (a *answer) into(task *agent.Task) {
	if a == nil {
		return
	}
	if a.selection != nil && task.Selection == nil {
		task.Selection = a.selection
	}
	if a.sessionID != "" {
		return // the session's conversation holds the answer
	}
	text := strings.TrimSpace(a.text)
	if r := []rune(text); len(r) > followUpChars {
		text = string(r[:followUpChars]) + "…"
	}
	task.Prompt += fmt.Sprintf("\n\nThis follows your earlier answer (%s):\n%s", a.title, text)
}
