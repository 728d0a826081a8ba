package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/mcp/mcptest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// bench is a workspace folder, a fake model and an MCP manager.
type bench struct {
	t      *testing.T
	root   string
	user   string // the user's agentls folder
	gem    *geminitest.Server
	traces string
	mcp    *mcp.Manager
	ask    *answers
}

func newBench(t *testing.T, turns ...geminitest.Turn) *bench {
	t.Helper()
	b := &bench{t: t, root: t.TempDir(), user: t.TempDir(), gem: geminitest.NewServer(t, turns...), traces: t.TempDir(),
		mcp: mcp.New(mcp.Config{Version: "test"}), ask: &answers{}}
	t.Cleanup(func() { b.mcp.Close() })
	return b
}

func (b *bench) host(withMCP bool) *runner.Host {
	h := &runner.Host{UserConfigDir: b.user, TraceDir: b.traces, Version: "test",
		NewModel: func(ctx context.Context, name string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: b.gem.URL, Model: name, Getenv: func(string) string { return "" }})
		}}
	if withMCP {
		h.MCP = b.mcp
	}
	return h
}

// engine is the policy engine of the user's folder, its files loaded.
func (b *bench) engine() *policy.Engine {
	e := policy.New(filepath.Join(b.user, "policy.toml"))
	if err := e.Load([]string{b.root}); err != nil {
		b.t.Fatal(err)
	}
	return e
}

func (b *bench) spec(servers map[string]contract.MCPServer, mode policy.Mode) runner.Spec {
	ws, err := workspace.New(b.root)
	if err != nil {
		b.t.Fatal(err)
	}
	s := contract.DefaultSettings()
	for name, srv := range servers {
		srv.Scope = contract.ScopeUser
		s.MCPServers[name] = srv
	}
	return runner.Spec{Workspace: ws, Root: ws.Roots()[0], Proposer: acceptAll{}, Approver: b.ask,
		Policy: b.engine().WithMode(mode), Settings: s, Task: agent.Task{Prompt: "use the tools"}}
}

// run builds and runs a run to its end, and returns its events.
func (b *bench) run(h *runner.Host, spec runner.Spec) (*runner.Run, []agent.Event) {
	b.t.Helper()
	run, err := h.Build(b.t.Context(), spec)
	if err != nil {
		b.t.Fatal(err)
	}
	return run, collect(b.t, run.Events(b.t.Context()))
}

func collect(t *testing.T, events func(func(agent.Event, error) bool)) []agent.Event {
	t.Helper()
	var out []agent.Event
	for ev, err := range events {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ev)
	}
	return out
}

func end(evs []agent.Event) agent.RunEnd {
	for _, ev := range evs {
		if ev.Type == agent.EventRunEnd {
			return *ev.End
		}
	}
	return agent.RunEnd{}
}

func warnings(evs []agent.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Type == agent.EventWarning {
			out = append(out, ev.Text)
		}
	}
	return out
}

// declared are the function names a model request offered.
func declared(req geminitest.Request) []string {
	var out []string
	for _, t := range req.Tools {
		for _, d := range t.FunctionDeclarations {
			out = append(out, d.Name)
		}
	}
	return out
}

// responses are the function responses a model request carried back.
func responses(req geminitest.Request) map[string]string {
	out := map[string]string{}
	last := req.Contents[len(req.Contents)-1]
	for _, p := range last.Parts {
		if r := p.FunctionResponse; r != nil {
			b, _ := json.Marshal(r.Response)
			out[r.Name] += string(b)
		}
	}
	return out
}

type acceptAll struct{}

func (acceptAll) Propose(context.Context, agent.Change) (agent.Decision, error) {
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// answers allows the calls it is asked about in turn, as yes lists, and
// records what it was asked.
type answers struct {
	mu    sync.Mutex
	yes   []bool
	asked []agent.Approval
}

func (a *answers) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, ap)
	if len(a.yes) == 0 {
		return false, nil
	}
	ok := a.yes[0]
	a.yes = a.yes[1:]
	return ok, nil
}

func (a *answers) questions() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out []string
	for _, ap := range a.asked {
		out = append(out, fmt.Sprintf("%s %s/%s %s", ap.Tool, ap.Server, ap.ServerTool, ap.Args))
	}
	return out
}

// A run offers the tools of its MCP servers next to the built-in ones, asks
// before each call (server, tool, arguments), honours a No, and its trace
// replays with no server: the replay declares the recorded tools and
// gives the recorded results.
func TestRunCallsMCPToolsAndReplays(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	b := newBench(t,
		geminitest.Reply(geminitest.Call("mcp_go_note", map[string]any{"text": "first"})),
		geminitest.Reply(geminitest.Call("mcp_go_note", map[string]any{"text": "second"})),
		geminitest.Reply(geminitest.Call("mcp_go_greet", map[string]any{"name": "Ada"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	b.ask.yes = []bool{true, false, true}
	run, evs := b.run(b.host(true), b.spec(map[string]contract.MCPServer{"go": {HTTPURL: srv.URL}}, policy.ModeDefault))
	if e := end(evs); e.Reason != agent.StopGoal {
		t.Fatalf("run ended %+v (warnings %q)", e, warnings(evs))
	}
	reqs := b.gem.Requests()
	if got := declared(reqs[0]); !slices.Contains(got, "read_file") || !slices.Contains(got, "mcp_go_note") || !slices.Contains(got, "mcp_go_greet") {
		t.Errorf("the model was offered %v", got)
	}
	want := []string{`mcp_go_note go/note {"text":"first"}`, `mcp_go_note go/note {"text":"second"}`, `mcp_go_greet go/greet {"name":"Ada"}`}
	if diff := cmp.Diff(want, b.ask.questions()); diff != "" {
		t.Errorf("questions (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"first"}, srv.Notes()); diff != "" {
		t.Errorf("notes kept (-want +got):\n%s", diff)
	}
	if r := responses(reqs[2])["mcp_go_note"]; !strings.Contains(r, "the user denied") {
		t.Errorf("the denied call answered %s", r)
	}
	if r := responses(reqs[3])["mcp_go_greet"]; !strings.Contains(r, `hello, Ada`) {
		t.Errorf("greet answered %s", r)
	}

	// The replay: no MCP manager, no servers in the settings.
	tr, err := trace.Load(run.TracePath)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Header.MCPTools) != 2 || tr.Header.MCPTools[0].Server != "go" {
		t.Errorf("the trace records the MCP tools %+v", tr.Header.MCPTools)
	}
	spec := b.spec(nil, policy.ModeDefault)
	spec.Approver = nil
	replay, rp := b.host(false).Replay(tr, spec)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	rp.SetAbort(cancel)
	revs := collect(t, replay.Events(ctx))
	if d := rp.Diverged(); d != nil {
		t.Fatalf("the replay diverged: %v", d)
	}
	if e := end(revs); e.Reason != agent.StopGoal {
		t.Errorf("the replay ended %+v", e)
	}
	if len(srv.Notes()) != 1 || len(b.gem.Requests()) != 4 {
		t.Errorf("the replay reached the server (%q) or the model (%d calls)", srv.Notes(), len(b.gem.Requests()))
	}
}

// trust: true from the user's settings lets calls run without asking.
func TestRunTrustedServer(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	b := newBench(t,
		geminitest.Reply(geminitest.Call("mcp_go_note", map[string]any{"text": "trusted"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	_, evs := b.run(b.host(true), b.spec(map[string]contract.MCPServer{"go": {HTTPURL: srv.URL, Trust: true}}, policy.ModeDefault))
	if e := end(evs); e.Reason != agent.StopGoal || len(b.ask.questions()) > 0 || len(srv.Notes()) != 1 {
		t.Errorf("run %+v, questions %q, notes %q", e, b.ask.questions(), srv.Notes())
	}
}

// A workspace's .agentls/settings.json starts its servers only in a
// trusted folder, and never trusts them; a read-only run has no MCP tools.
func TestRunWorkspaceServers(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	b := newBench(t,
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})),
		geminitest.Reply(geminitest.Call("mcp_repo_note", map[string]any{"text": "from the repo"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	file := contract.WorkspaceSettingsFile(b.root)
	os.MkdirAll(filepath.Dir(file), 0o755)
	if err := os.WriteFile(file, []byte(`{"mcpServers": {"repo": {"httpUrl": "`+srv.URL+`", "trust": true}}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, evs := b.run(b.host(true), b.spec(nil, policy.ModeDefault))
	if got := declared(b.gem.Requests()[0]); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "mcp_") }) {
		t.Errorf("an untrusted folder's server gave tools: %v", got)
	}
	if w := warnings(evs); len(w) != 1 || !strings.Contains(w[0], "defines MCP servers (repo); they start only in a folder you trust") {
		t.Errorf("warnings %q", w)
	}

	// Trusted: the server starts, without trust.
	if err := os.WriteFile(policy.WorkspaceFile(b.root), []byte("# no rules\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	eng := b.engine()
	st, err := eng.TrustState(b.root)
	if err == nil {
		err = eng.Trust(b.root, st.Hash)
	}
	if err != nil {
		t.Fatal(err)
	}
	b.ask.yes = []bool{true}
	_, evs = b.run(b.host(true), b.spec(nil, policy.ModeDefault))
	if e := end(evs); e.Reason != agent.StopGoal || len(srv.Notes()) != 1 {
		t.Fatalf("run %+v, notes %q", e, srv.Notes())
	}
	if q := b.ask.questions(); len(q) != 1 {
		t.Errorf("a workspace server was trusted: questions %q", q)
	}
	if w := warnings(evs); len(w) != 1 || !strings.HasSuffix(w[0], "mcpServers: repo: trust is ignored in a workspace's settings file") {
		t.Errorf("warnings %q", w)
	}

	// Plan mode: read-only, no MCP tools.
	b.run(b.host(true), b.spec(nil, policy.ModePlan))
	reqs := b.gem.Requests()
	if got := declared(reqs[len(reqs)-1]); slices.ContainsFunc(got, func(n string) bool { return strings.HasPrefix(n, "mcp_") }) {
		t.Errorf("a plan-mode run was offered %v", got)
	}
}

// A subagent gets the MCP tools its definition lists, and no others.
func TestSubagentListsMCPTools(t *testing.T) {
	t.Parallel()
	srv := mcptest.NewServer(t)
	b := newBench(t,
		geminitest.Reply(geminitest.Call("greeter", map[string]any{"objective": "greet Ada"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "greeted"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	agents := filepath.Join(b.user, "agents") // a workspace's agents only read and plan
	os.MkdirAll(agents, 0o755)
	os.WriteFile(filepath.Join(agents, "greeter.md"), []byte("---\nname: greeter\ndescription: Greets.\ntools: [read_file, mcp_go_greet]\n---\nYou greet.\n"), 0o644)
	b.ask.yes = []bool{true} // a custom agent asks
	_, evs := b.run(b.host(true), b.spec(map[string]contract.MCPServer{"go": {HTTPURL: srv.URL}}, policy.ModeDefault))
	if e := end(evs); e.Reason != agent.StopGoal {
		t.Fatalf("run %+v", e)
	}
	reqs := b.gem.Requests()
	if got := declared(reqs[1]); !slices.Equal(got, []string{"read_file", "mcp_go_greet", "complete_task"}) {
		t.Errorf("the subagent was offered %v", got)
	}
	if got := declared(reqs[0]); !slices.Contains(got, "mcp_go_note") {
		t.Errorf("the main agent was offered %v", got)
	}
}
