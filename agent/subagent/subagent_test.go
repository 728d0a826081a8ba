package subagent_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/subagent"
)

func fake(t *testing.T, turns ...geminitest.Turn) (*geminitest.Server, agent.Model) {
	t.Helper()
	srv := geminitest.NewServer(t, turns...)
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: "k", BaseURL: srv.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return srv, m
}

type lookArgs struct {
	Path string `json:"path"`
}

// readOnly is the registry given to subagents in these tests.
func readOnly(def agent.Definition, depth int) []agent.Tool {
	return []agent.Tool{agent.NewFunc("grep_search", "Search.", func(ctx context.Context, call *agent.Call, a lookArgs) (agent.Result, error) {
		return agent.Result{Output: "main.go:3: func Hello()"}, nil
	})}
}

func call(name string, args map[string]any) geminitest.Turn {
	return geminitest.Reply(geminitest.Call(name, args))
}

func TestInvestigatorReport(t *testing.T) {
	t.Parallel()
	report := map[string]any{"summary": "Hello is in main.go", "exploration_trace": []any{"grep Hello"}, "relevant_paths": []any{"main.go"}}
	srv, m := fake(t,
		call("codebase_investigator", map[string]any{"objective": "where is Hello defined?"}), // parent
		call("grep_search", map[string]any{"path": "."}),                                      // child
		call("complete_task", map[string]any{"summary": "incomplete"}),                        // child: invalid report
		call("complete_task", report),                                                         // child
		call("complete_task", map[string]any{"result": "Hello is in main.go."}),               // parent
	)
	sub := subagent.Config{Model: m, Tools: readOnly}
	cfg := agent.Config{Model: m, RunID: "main-1", Tools: subagent.Tools([]agent.Definition{subagent.Investigator()}, sub)}
	var evs []agent.Event
	for ev, err := range agent.Run(t.Context(), cfg, agent.Task{Prompt: "find Hello"}) {
		if err != nil {
			t.Fatal(err)
		}
		evs = append(evs, ev)
	}
	if end := evs[len(evs)-1].End; end.Reason != agent.StopGoal {
		t.Fatalf("parent ended %+v", end)
	}
	reqs := srv.Requests()
	// The child has its own history and registry.
	child := reqs[1]
	if len(child.Contents) != 1 || !strings.Contains(child.Contents[0].Parts[0].Text, "where is Hello defined?") {
		t.Errorf("the child's first request carries %d contents: %+v", len(child.Contents), child.Contents)
	}
	var names []string
	for _, d := range child.Tools[0].FunctionDeclarations {
		names = append(names, d.Name)
	}
	if diff := cmp.Diff([]string{"grep_search", "complete_task"}, names); diff != "" {
		t.Errorf("child tools (-want +got):\n%s", diff)
	}
	if !strings.Contains(child.SystemInstruction.Parts[0].Text, "codebase_investigator, a read-only subagent") {
		t.Error("the child did not get the investigator's instructions")
	}
	// The invalid report was sent back to the child, not to the parent.
	bad := reqs[3].Contents[len(reqs[3].Contents)-1].Parts[0].FunctionResponse.Response
	if msg, _ := bad["error"].(string); !strings.Contains(msg, "relevant_paths") {
		t.Errorf("invalid report answer = %v", bad)
	}
	// Only the final report reaches the parent.
	last := reqs[4].Contents[len(reqs[4].Contents)-1].Parts[0].FunctionResponse.Response
	var got map[string]any
	if err := json.Unmarshal([]byte(last["output"].(string)), &got); err != nil {
		t.Fatalf("parent got %v", last)
	}
	if diff := cmp.Diff(report, got); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	if len(reqs[4].Contents) != 3 {
		t.Errorf("the parent's history has %d contents, want 3 (the child's steps stay out)", len(reqs[4].Contents))
	}

	// Events: start, activity carrying the parent's run id, end.
	var kinds []agent.EventType
	for _, ev := range evs {
		switch ev.Type {
		case agent.EventSubagentStart:
			if ev.Subagent.Task != "where is Hello defined?" || ev.Subagent.Cancel == nil {
				t.Errorf("subagent_start = %+v", ev.Subagent)
			}
			kinds = append(kinds, ev.Type)
		case agent.EventSubagentActivity:
			if ev.Inner.ParentRunID != "main-1" || ev.Inner.RunID != ev.Subagent.RunID || ev.RunID != "main-1" {
				t.Errorf("activity: run %s, inner run %s parent %s", ev.RunID, ev.Inner.RunID, ev.Inner.ParentRunID)
			}
			if len(kinds) == 0 || kinds[len(kinds)-1] != agent.EventSubagentActivity {
				kinds = append(kinds, ev.Type)
			}
		case agent.EventSubagentEnd:
			if ev.Subagent.End.Reason != agent.StopGoal {
				t.Errorf("subagent_end = %+v", ev.Subagent.End)
			}
			kinds = append(kinds, ev.Type)
		}
	}
	if diff := cmp.Diff([]agent.EventType{agent.EventSubagentStart, agent.EventSubagentActivity, agent.EventSubagentEnd}, kinds); diff != "" {
		t.Errorf("subagent events (-want +got):\n%s", diff)
	}
}

func TestCancelSubagentOnly(t *testing.T) {
	t.Parallel()
	slow := call("grep_search", map[string]any{"path": "."})
	slow.Delay = time.Hour
	thinking := make(chan struct{})
	slow.Check = func(geminitest.Request) error { close(thinking); return nil }
	srv, m := fake(t,
		call("codebase_investigator", map[string]any{"objective": "look around"}),
		slow, // the child is still thinking when the user stops it
		call("complete_task", map[string]any{"result": "gave up on the investigation"}),
	)
	cfg := agent.Config{Model: m, Tools: subagent.Tools([]agent.Definition{subagent.Investigator()}, subagent.Config{Model: m, Tools: readOnly})}
	var end agent.RunEnd
	for ev := range agent.Run(t.Context(), cfg, agent.Task{Prompt: "go"}) {
		switch {
		case ev.Type == agent.EventSubagentStart:
			// The user cancels the subagent's progress, not the run's, while
			// the subagent's model call is under way.
			stop := ev.Subagent.Cancel
			go func() { <-thinking; stop() }()
		case ev.End != nil:
			end = *ev.End
		}
	}
	if end.Reason != agent.StopGoal {
		t.Fatalf("the parent ended %+v, want it to go on after the subagent was stopped", end)
	}
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	resp := last.Contents[len(last.Contents)-1].Parts[0].FunctionResponse.Response
	if msg, _ := resp["error"].(string); !strings.Contains(msg, "The user stopped codebase_investigator") {
		t.Errorf("the parent was told %v", resp)
	}
}

func TestDepthBound(t *testing.T) {
	t.Parallel()
	defs := []agent.Definition{subagent.Investigator()}
	if got := subagent.Tools(defs, subagent.Config{Depth: 0}); len(got) != 1 {
		t.Errorf("depth 0: %d tools, want 1", len(got))
	}
	if got := subagent.Tools(defs, subagent.Config{Depth: 1}); len(got) != 0 {
		t.Errorf("depth 1: %d tools, want none", len(got))
	}
	if got := subagent.Tools(defs, subagent.Config{Depth: 1, MaxDepth: 2}); len(got) != 1 {
		t.Errorf("depth 1 of 2: %d tools, want 1", len(got))
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src string
		want      agent.Definition
		err       string
	}{
		{
			name: "full",
			src:  "---\nname: reviewer\ndescription: Reviews a diff.\ntools: [read_file, grep_search]\nmodel: gemini-2.5-pro\nmax_turns: 12\ntimeout_minutes: 2.5\n---\nYou review code.\n",
			want: agent.Definition{Name: "reviewer", Description: "Reviews a diff.", Instructions: "You review code.",
				Tools: []string{"read_file", "grep_search"}, Model: "gemini-2.5-pro", MaxTurns: 12, Timeout: 150 * time.Second},
		},
		{
			name: "no tools listed, CRLF",
			src:  "---\r\nname: thinker\r\ndescription: Thinks.\r\n---\r\nThink hard.\r\n",
			want: agent.Definition{Name: "thinker", Description: "Thinks.", Instructions: "Think hard.", Tools: []string{}},
		},
		{name: "no front matter", src: "hello", err: "no front matter"},
		{name: "unclosed", src: "---\nname: x\n", err: "no closing line"},
		{name: "bad name", src: "---\nname: Bad-Name\ndescription: d\n---\nx\n", err: "lower case"},
		{name: "no description", src: "---\nname: x\n---\nbody\n", err: "description is required"},
		{name: "empty body", src: "---\nname: x\ndescription: d\n---\n\n", err: "system prompt"},
		{name: "unknown key", src: "---\nname: x\ndescription: d\ncolour: blue\n---\nbody\n", err: "colour"},
		{name: "bad yaml", src: "---\nname: [x\n---\nbody\n", err: "front matter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := subagent.Parse([]byte(tt.src))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("definition (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLoadDirAndMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.md"), []byte("---\nname: codebase_investigator\ndescription: My own.\n---\nMine.\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "b.md"), []byte("not an agent"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("ignored"), 0o644)
	defs, errs := subagent.LoadDir(dir)
	if len(defs) != 1 || len(errs) != 1 || !strings.Contains(errs[0].Error(), "b.md") {
		t.Fatalf("defs %v, errs %v", defs, errs)
	}
	merged := subagent.Merge([]agent.Definition{subagent.Investigator()}, defs)
	if len(merged) != 1 || merged[0].Description != "My own." {
		t.Errorf("merged = %+v, want the workspace's definition to replace the built-in one", merged)
	}
	if none, errs := subagent.LoadDir(filepath.Join(dir, "missing")); len(none) != 0 || len(errs) != 0 {
		t.Errorf("missing folder: %v %v", none, errs)
	}
}

func TestLoadMergesUserAndWorkspaceAgents(t *testing.T) {
	t.Parallel()
	user, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(user, "agents"), 0o755)
	os.MkdirAll(filepath.Join(root, ".agentls", "agents"), 0o755)
	os.WriteFile(filepath.Join(user, "agents", "r.md"), []byte("---\nname: reviewer\ndescription: The user's.\n---\nU.\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".agentls", "agents", "r.md"), []byte("---\nname: reviewer\ndescription: The project's.\n---\nP.\n"), 0o644)
	os.WriteFile(filepath.Join(root, ".agentls", "agents", "bad.md"), []byte("no"), 0o644)
	defs, errs := subagent.Load(user, root)
	var got []string
	for _, d := range defs {
		got = append(got, d.Name+": "+d.Description)
	}
	if diff := cmp.Diff([]string{"codebase_investigator: " + subagent.Investigator().Description, "reviewer: The user's."}, got); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	if len(errs) != 2 || !strings.Contains(errs[0].Error()+errs[1].Error(), "agent reviewer left out") {
		t.Errorf("errors = %v, want the bad file and the workspace's reviewer", errs)
	}
}

// A subagent is read-only, for the policy, when every tool it is given is:
// the investigator runs without a question, an agent that may edit asks.
func TestKind(t *testing.T) {
	t.Parallel()
	nop := func(context.Context, *agent.Call, lookArgs) (agent.Result, error) { return agent.Result{}, nil }
	given := func(agent.Definition, int) []agent.Tool {
		return []agent.Tool{
			agent.NewFunc("read_file", "Read.", nop).WithKind(agent.KindRead),
			agent.NewFunc("write_file", "Write.", nop).WithKind(agent.KindEdit),
		}
	}
	fixer := agent.Definition{Name: "fixer", Description: "Fixes.", Tools: []string{"read_file", "write_file"}}
	got := map[string]agent.Kind{}
	for _, tl := range subagent.Tools([]agent.Definition{subagent.Investigator(), fixer}, subagent.Config{Tools: given}) {
		got[tl.Declaration().Name] = agent.KindOf(tl)
	}
	if diff := cmp.Diff(map[string]agent.Kind{"codebase_investigator": agent.KindRead, "fixer": ""}, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
}

// A repository cannot redefine the house: its agents cannot take a
// built-in tool's or agent's name, nor the user's agents' names, and have
// read-only tools at most.
func TestWorkspaceAgentsCannotRedefineTheHouse(t *testing.T) {
	t.Parallel()
	user, root := t.TempDir(), t.TempDir()
	os.MkdirAll(filepath.Join(user, "agents"), 0o755)
	os.MkdirAll(filepath.Join(root, ".agentls", "agents"), 0o755)
	agentFile := func(dir, name, tools string) {
		os.WriteFile(filepath.Join(dir, name+".md"), []byte("---\nname: "+name+"\ndescription: D.\ntools: ["+tools+"]\n---\nP.\n"), 0o644)
	}
	ws := filepath.Join(root, ".agentls", "agents")
	agentFile(filepath.Join(user, "agents"), "mine", "read_file, run_shell_command")
	agentFile(filepath.Join(user, "agents"), "write_file", "read_file")
	for _, name := range []string{"read_file", "run_shell_command", "complete_task", "main", "codebase_investigator", "mine"} {
		agentFile(ws, name, "read_file, write_file, run_shell_command")
	}
	agentFile(ws, "helper", "read_file, grep_search, replace, write_file, run_shell_command")
	defs, errs := subagent.Load(user, root)
	var got []string
	for _, d := range defs {
		got = append(got, d.Name+": "+strings.Join(d.Tools, ","))
	}
	want := []string{"codebase_investigator: list_directory,glob,grep_search,read_file", "mine: read_file,run_shell_command", "helper: read_file,grep_search"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("agents (-want +got):\n%s", diff)
	}
	all := fmt.Sprint(errs)
	for _, part := range []string{"agent write_file left out: the name is a built-in tool's", "agent read_file left out", "agent main left out",
		"agent codebase_investigator left out: a workspace's agent cannot replace", "agent mine left out", "agent helper runs without replace, write_file, run_shell_command"} {
		if !strings.Contains(all, part) {
			t.Errorf("errors lack %q: %v", part, errs)
		}
	}
}

// ToolNames name every built-in tool, those offered only with a setting
// included; WorkspaceTools are the read tools every run has.
func TestToolNames(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"read_file", "replace", "run_shell_command", "get_diagnostics", "activate_skill", "web_fetch",
		"google_web_search", "save_memory", agent.CompleteTaskName} {
		if !slices.Contains(subagent.ToolNames(), name) {
			t.Errorf("ToolNames lack %s: %v", name, subagent.ToolNames())
		}
	}
	want := []string{"read_file", "list_directory", "glob", "grep_search", "write_todos"}
	if diff := cmp.Diff(want, subagent.WorkspaceTools()); diff != "" {
		t.Errorf("WorkspaceTools (-want +got):\n%s", diff)
	}
}

type nopProposer struct{}

func (nopProposer) Propose(context.Context, agent.Change) (agent.Decision, error) {
	return agent.Decision{}, nil
}

// TestSubagentUsageCounts: what a subagent spends counts in its parent's
// run_end usage, cost included.
func TestSubagentUsageCounts(t *testing.T) {
	t.Parallel()
	usage := func(name string, args map[string]any, prompt int32) geminitest.Turn {
		c := geminitest.Call(name, args)
		c.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: 10, TotalTokenCount: prompt + 10}
		return geminitest.Reply(c)
	}
	_, m := fake(t,
		usage("codebase_investigator", map[string]any{"objective": "look"}, 100),                                              // parent
		usage("complete_task", map[string]any{"summary": "s", "exploration_trace": []any{}, "relevant_paths": []any{}}, 1000), // child
		usage("complete_task", map[string]any{"result": "done"}, 200),                                                         // parent
	)
	cfg := agent.Config{Model: m, Tools: subagent.Tools([]agent.Definition{subagent.Investigator()}, subagent.Config{Model: m, Tools: readOnly})}
	var last agent.Event
	for ev, err := range agent.Run(t.Context(), cfg, agent.Task{Prompt: "go"}) {
		if err != nil {
			t.Fatal(err)
		}
		last = ev
	}
	u := last.Usage
	// 1300 prompt and 30 output tokens at gemini-flash-latest's prices.
	if u == nil || u.Prompt != 1300 || u.Output != 30 || math.Abs(u.Cost-(1300*1.50+30*9.00)/1e6) > 1e-12 {
		t.Errorf("parent's usage = %+v, want its own and the subagent's", u)
	}
}
