package trace_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"path/filepath"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/trace"
)

// script is a model that answers each call with the next response.
type script struct {
	mu    sync.Mutex
	turns []*genai.GenerateContentResponse
	n     int
}

func (s *script) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		s.mu.Lock()
		n := s.n
		s.n++
		s.mu.Unlock()
		if n >= len(s.turns) {
			yield(nil, fmt.Errorf("the script has no turn %d", n+1))
			return
		}
		yield(s.turns[n], nil)
	}
}

// answer is one model response: thought, text and function call parts.
func answer(parts ...*genai.Part) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{
		Candidates:    []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: parts}, FinishReason: genai.FinishReasonStop}},
		UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 10},
	}
}

func call(name string, args map[string]any) *genai.Part {
	return &genai.Part{FunctionCall: &genai.FunctionCall{Name: name, Args: args}}
}

func thought(s string) *genai.Part { return &genai.Part{Text: s, Thought: true} }

func done(result string) *genai.Part {
	return call(agent.CompleteTaskName, map[string]any{"result": result})
}

// shellTool stands for run_shell_command: a side-effecting, Approvable tool
// that counts its runs.
type shellTool struct {
	*agent.Func[shellArgs]
	mu   *sync.Mutex
	runs *int
}

type shellArgs struct {
	Command string `json:"command"`
}

func newShell() shellTool {
	t := shellTool{mu: new(sync.Mutex), runs: new(int)}
	t.Func = agent.NewFunc("run_shell_command", "Run a command.", func(ctx context.Context, c *agent.Call, a shellArgs) (agent.Result, error) {
		t.mu.Lock()
		*t.runs++
		t.mu.Unlock()
		return agent.Result{Output: "Exit code: 0\nOutput:\nran " + a.Command + "\n", Display: "Ran " + a.Command}, nil
	})
	return t
}

func (t shellTool) Approval(args json.RawMessage) (agent.Approval, error) {
	var a shellArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return agent.Approval{}, err
	}
	return agent.Approval{Tool: "run_shell_command", Command: a.Command, Dir: "/ws"}, nil
}

func (t shellTool) ran() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return *t.runs
}

// files is an in-memory set of files that edit tools propose changes to.
type files struct {
	mu sync.Mutex
	m  map[string]string
}

func (f *files) get(name string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[name]
}

// Propose implements agent.Proposer: it applies every change.
func (f *files) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m[ch.Name] != ch.Old {
		return agent.Decision{Outcome: agent.OutcomeConflict}, nil
	}
	f.m[ch.Name] = ch.New
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

type appendArgs struct {
	File string `json:"file"`
	Line string `json:"line"`
}

// appendTool proposes to add a line to a file of fs.
func appendTool(fs *files, p agent.Proposer) agent.Tool {
	return agent.NewFunc("append", "Add a line.", func(ctx context.Context, c *agent.Call, a appendArgs) (agent.Result, error) {
		old := fs.get(a.File)
		d, err := c.Propose(ctx, p, agent.Change{Path: "/ws/" + a.File, Name: a.File, Old: old, New: old + a.Line + "\n", Tool: "append"})
		if err != nil {
			return agent.Result{}, err
		}
		if d.Outcome != agent.OutcomeApplied {
			return agent.Errorf("not applied: %s", d.Outcome), nil
		}
		return agent.Result{Output: "added"}, nil
	})
}

// allow is an Approver that allows everything.
type allow struct{}

func (allow) Approve(context.Context, agent.Approval) (bool, error) { return true, nil }

// record runs cfg with a trace and returns the trace's path and the events.
func record(t *testing.T, cfg agent.Config, task agent.Task, opts trace.Options) (string, []agent.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := trace.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, w.Run(t.Context(), cfg, task, trace.Header{Workspace: "/ws", Version: "test"}))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path, evs
}

func drain(t *testing.T, seq iter.Seq2[agent.Event, error]) []agent.Event {
	t.Helper()
	var evs []agent.Event
	for ev, err := range seq {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	return evs
}

func load(t *testing.T, path string) *trace.Trace {
	t.Helper()
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func endOf(evs []agent.Event) agent.RunEnd {
	if len(evs) == 0 || evs[len(evs)-1].End == nil {
		return agent.RunEnd{}
	}
	return *evs[len(evs)-1].End
}

func ofType(evs []agent.Event, typ agent.EventType) []agent.Event {
	var out []agent.Event
	for _, ev := range evs {
		if ev.Type == typ {
			out = append(out, ev)
		}
	}
	return out
}

var errFire = errors.New("disk on fire")

func newWriter(t *testing.T) (*trace.Writer, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := trace.Create(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w, path
}
