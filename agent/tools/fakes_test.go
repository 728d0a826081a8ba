package tools_test

import (
	"context"
	"fmt"
	"io/fs"
	"iter"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

// The tests drive the tools through agent.Run, the real harness, with a
// scripted model, an in-memory workspace and a Proposer that answers as told.

const root = "/ws"

// scriptedModel answers each model call with the next scripted response and
// records the requests it gets.
type scriptedModel struct {
	turns []*genai.GenerateContentResponse

	mu   sync.Mutex
	reqs []*agent.Request
}

func (m *scriptedModel) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.mu.Lock()
		n := len(m.reqs)
		// The harness appends to its history after the call: keep the
		// request as it was sent.
		m.reqs = append(m.reqs, &agent.Request{Model: req.Model, Contents: slices.Clone(req.Contents), Config: req.Config})
		m.mu.Unlock()
		if n >= len(m.turns) {
			yield(nil, fmt.Errorf("the script has no turn %d", n+1))
			return
		}
		yield(m.turns[n], nil)
	}
}

func (m *scriptedModel) requests() []*agent.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.reqs)
}

// turn is one model answer calling fcs.
func turn(fcs ...*genai.FunctionCall) *genai.GenerateContentResponse {
	c := &genai.Content{Role: genai.RoleModel}
	for _, fc := range fcs {
		c.Parts = append(c.Parts, &genai.Part{FunctionCall: fc})
	}
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: c, FinishReason: genai.FinishReasonStop}}}
}

func call(name string, args map[string]any) *genai.FunctionCall {
	return &genai.FunctionCall{Name: name, Args: args}
}

// memFS is an agent.FS over files kept in memory under root.
type memFS struct {
	mu    sync.Mutex
	files fstest.MapFS // paths relative to root
}

// newMemFS holds files, keyed by absolute path; a key ending in "/" is an
// empty folder. Folders of the files are implied.
func newMemFS(files map[string]string) *memFS {
	m := &memFS{files: fstest.MapFS{}}
	for p, content := range files {
		rel := strings.TrimPrefix(p, root+"/")
		if dir, ok := strings.CutSuffix(rel, "/"); ok {
			m.files[dir] = &fstest.MapFile{Mode: fs.ModeDir | 0o755}
			continue
		}
		m.files[rel] = &fstest.MapFile{Data: []byte(content)}
	}
	return m
}

func (m *memFS) Resolve(p string) (string, error) {
	if !path.IsAbs(p) {
		p = path.Join(root, p)
	}
	p = path.Clean(p)
	if p != root && !strings.HasPrefix(p, root+"/") {
		return "", fmt.Errorf("%s is outside the workspace", p)
	}
	return p, nil
}

func (m *memFS) ReadFile(p string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	b, err := fs.ReadFile(m.files, m.Rel(p))
	return string(b), err
}

func (m *memFS) ReadDir(p string) ([]fs.DirEntry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return fs.ReadDir(m.files, m.Rel(p))
}

// Links: an in-memory workspace has no symlinks.
func (m *memFS) Links(p string) ([]string, error) { return []string{p}, nil }

func (m *memFS) Rel(p string) string {
	if p == root {
		return "."
	}
	return strings.TrimPrefix(p, root+"/")
}

// touch sets the modification time of the file at p.
func (m *memFS) touch(p string, t time.Time) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[m.Rel(p)].ModTime = t
}

// write is the editor applying a change.
func (m *memFS) write(p, content string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.files[m.Rel(p)] = &fstest.MapFile{Data: []byte(content)}
}

// An answer is what fakeProposer does with one proposal. The zero answer
// applies the change.
type answer struct {
	decision agent.Decision // Outcome "" means applied
	err      error          // returned as is, instead of a decision
	block    bool           // wait for the run's context to end and return its error
	gate     chan struct{}  // if set, wait for it to close before answering
}

// fakeProposer answers proposals in order, applies the applied ones to its
// memFS, and records every change it gets.
type fakeProposer struct {
	fs      *memFS
	write   func(path, content string) // applies a change; nil: fs.write
	answers []answer

	mu      sync.Mutex
	changes []agent.Change
}

func (p *fakeProposer) Propose(ctx context.Context, c agent.Change) (agent.Decision, error) {
	p.mu.Lock()
	var a answer
	if n := len(p.changes); n < len(p.answers) {
		a = p.answers[n]
	}
	p.changes = append(p.changes, c)
	p.mu.Unlock()

	if a.block {
		<-ctx.Done()
		return agent.Decision{}, ctx.Err()
	}
	if a.gate != nil {
		select {
		case <-a.gate:
		case <-ctx.Done():
			return agent.Decision{}, ctx.Err()
		}
	}
	if a.err != nil {
		return agent.Decision{}, a.err
	}
	d := a.decision
	if d.Outcome == "" {
		d.Outcome = agent.OutcomeApplied
	}
	if d.Outcome == agent.OutcomeApplied {
		content := c.New
		if d.Final != "" {
			content = d.Final
		}
		if p.write != nil {
			p.write(c.Path, content)
		} else {
			p.fs.write(c.Path, content)
		}
	}
	return d, nil
}

func (p *fakeProposer) got() []agent.Change {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.changes)
}

// A script is one run: a workspace, the Proposer's answers, and the calls of
// the model's first turn. play adds a second turn calling complete_task.
type script struct {
	files    map[string]string // nil: defaultFiles
	answers  []answer
	prelude  []*genai.FunctionCall // a turn played before the calls, if any
	calls    []*genai.FunctionCall
	readOnly bool // no Proposer: the run has no edit tools
	// env and cfg, if set, change the run's tools.Env and agent.Config.
	env func(*tools.Env)
	cfg func(*agent.Config)
	fs  func(*memFS) // changes the workspace before the run

	cancelOn agent.EventType   // cancel the run when this event comes
	cancel   <-chan struct{}   // cancel the run when this closes
	watch    func(agent.Event) // sees every event as it comes
	disk     *diskFS           // the workspace, instead of files in memory
}

// A transcript is what became of a script.
type transcript struct {
	model   *scriptedModel
	events  []agent.Event
	end     agent.RunEnd
	changes []agent.Change // what the Proposer got
	turn    int            // the turn of the script's calls
}

var defaultFiles = map[string]string{
	root + "/a.txt": "alpha\nbeta\nalpha\ngamma\nalpha\n",
	root + "/b.go":  "package b\n\nfunc f() int { return 1 }\n",
	root + "/c.txt": "one\ntwo\nthree\nfour\nfive\n",
}

func play(t *testing.T, s script) transcript {
	t.Helper()
	files := s.files
	if files == nil {
		files = defaultFiles
	}
	fsys := newMemFS(files)
	if s.fs != nil {
		s.fs(fsys)
	}
	prop := &fakeProposer{fs: fsys, answers: s.answers}
	env := tools.Env{FS: fsys, Proposer: prop}
	if s.disk != nil {
		env.FS, prop.write = s.disk, s.disk.write
	}
	if s.readOnly {
		env.Proposer = nil
	}
	if s.env != nil {
		s.env(&env)
	}
	model := &scriptedModel{}
	tr := transcript{model: model, turn: 1}
	if s.prelude != nil {
		model.turns = append(model.turns, turn(s.prelude...))
		tr.turn = 2
	}
	model.turns = append(model.turns, turn(s.calls...), turn(call(agent.CompleteTaskName, map[string]any{"result": "done"})))
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	if s.cancel != nil {
		go func() {
			select {
			case <-s.cancel:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	cfg := agent.Config{Model: model, Tools: tools.Builtin(env), RunID: "test"}
	if s.cfg != nil {
		s.cfg(&cfg)
	}
	for ev, err := range agent.Run(ctx, cfg, agent.Task{Prompt: "go"}) {
		if err != nil {
			t.Fatalf("agent.Run: %v", err)
		}
		tr.events = append(tr.events, ev)
		if s.watch != nil {
			s.watch(ev)
		}
		if ev.Type == s.cancelOn {
			cancel()
		}
		if ev.End != nil {
			tr.end = *ev.End
		}
	}
	tr.changes = prop.got()
	return tr
}

// A reply is the function response the model got for one call.
type reply struct {
	Name     string
	Response map[string]any
}

func output(s string) map[string]any  { return map[string]any{"output": s} }
func toolErr(s string) map[string]any { return map[string]any{"error": s} }

// replies returns the function responses of the script's calls, as the
// model read them in its next request.
func (tr transcript) replies(t *testing.T) []reply {
	t.Helper()
	reqs := tr.model.requests()
	if len(reqs) < tr.turn+1 {
		t.Fatalf("the model was called %d times, want at least %d (run end: %+v)", len(reqs), tr.turn+1, tr.end)
	}
	contents := reqs[tr.turn].Contents
	last := contents[len(contents)-1]
	if last.Role != genai.RoleUser {
		t.Errorf("last content of request %d has role %q, want %q", tr.turn+1, last.Role, genai.RoleUser)
	}
	var rs []reply
	for _, p := range last.Parts {
		if p.FunctionResponse == nil {
			t.Fatalf("request %d ends with a part that is no function response: %+v", tr.turn+1, p)
		}
		rs = append(rs, reply{Name: p.FunctionResponse.Name, Response: p.FunctionResponse.Response})
	}
	return rs
}

// A step is an event of a tool call, reduced to what the tests check.
type step struct {
	Type    agent.EventType
	Tool    string
	Display string // tool_call, tool_result
	IsError bool   // tool_result
	Edit    *edit  // edit_proposed, edit_decided
}

type edit struct {
	Path, Name     string
	Added, Deleted int
	Create         bool
	Outcome        agent.Outcome
	Message        string
	HasDiff        bool
}

// steps returns the tool call events of the script's calls, in stream
// order.
func (tr transcript) steps() []step {
	var ss []step
	for _, ev := range tr.events {
		if ev.Turn != tr.turn || ev.Call == nil {
			continue
		}
		s := step{Type: ev.Type, Tool: ev.Call.Name}
		switch ev.Type {
		case agent.EventToolCall:
			s.Display = ev.Call.Display
		case agent.EventToolResult:
			s.Display, s.IsError = ev.Result.Display, ev.Result.IsError
		case agent.EventEditProposed, agent.EventEditDecided:
			e := ev.Edit
			s.Edit = &edit{Path: e.Path, Name: e.Name, Added: e.Added, Deleted: e.Deleted, Create: e.Create,
				Outcome: e.Outcome, Message: e.Message, HasDiff: e.Diff != ""}
		}
		ss = append(ss, s)
	}
	return ss
}

func called(tool, display string) step {
	return step{Type: agent.EventToolCall, Tool: tool, Display: display}
}

func succeeded(tool, display string) step {
	return step{Type: agent.EventToolResult, Tool: tool, Display: display}
}

func failed(tool, display string) step {
	return step{Type: agent.EventToolResult, Tool: tool, Display: display, IsError: true}
}

func proposed(tool string, e edit) step {
	e.HasDiff = true
	return step{Type: agent.EventEditProposed, Tool: tool, Edit: &e}
}

func decided(tool string, e edit, outcome agent.Outcome, message string) step {
	e.Outcome, e.Message = outcome, message
	return step{Type: agent.EventEditDecided, Tool: tool, Edit: &e}
}

// A toolCase is one call of one tool in a run of its own.
type toolCase struct {
	name    string
	files   map[string]string // nil: defaultFiles
	answers []answer
	prelude []*genai.FunctionCall // a turn before the call
	env     func(*tools.Env)
	call    *genai.FunctionCall
	want    map[string]any // the function response the model gets
	steps   []step
	changes []agent.Change // what the Proposer gets
}

func (c toolCase) check(t *testing.T) {
	tr := play(t, script{files: c.files, answers: c.answers, prelude: c.prelude, env: c.env, calls: []*genai.FunctionCall{c.call}})
	if diff := cmp.Diff(agent.RunEnd{Reason: agent.StopGoal, Result: "done", Turns: tr.turn + 1}, tr.end); diff != "" {
		t.Errorf("run end (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]reply{{Name: c.call.Name, Response: c.want}}, tr.replies(t)); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(c.steps, tr.steps()); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
	// Which call proposes a change is TestChangesNameTheirCall's.
	if diff := cmp.Diff(c.changes, tr.changes, cmpopts.IgnoreFields(agent.Change{}, "RunID", "CallID")); diff != "" {
		t.Errorf("proposed changes (-want +got):\n%s", diff)
	}
}

func runCases(t *testing.T, cases []toolCase) {
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			c.check(t)
		})
	}
}
