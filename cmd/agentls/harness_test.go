package main

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/trace"
)

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func customAgent(name string) string {
	return "---\nname: " + name + "\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review code.\n"
}

// agentls run offers the subagents (codebase_investigator, the user's and
// the workspace's custom agents) with read-only tools, and puts the context
// files and the environment in the system prompt; the subagent's run is
// drawn as a box and traced with its parent's id.
func TestRunWiresSubagentsAndContext(t *testing.T) {
	t.Parallel()
	ws := copyExample(t)
	config, state := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, "AGENTS.md"), "Always answer in haiku.\n")
	write(t, filepath.Join(ws, ".agentls", "agents", "reviewer.md"), customAgent("reviewer"))
	write(t, filepath.Join(config, "agentls", "AGENTS.md"), "The user's own rule.\n")
	write(t, filepath.Join(config, "agentls", "agents", "helper.md"), customAgent("helper"))
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("codebase_investigator", map[string]any{"objective": "find the greeting"})),
		geminitest.Reply(geminitest.Thought("**Searching**\n\nfor Hello"), geminitest.Call("complete_task", map[string]any{
			"summary": "Hello is in main.go", "exploration_trace": []string{"read main.go"}, "relevant_paths": []string{"main.go"}})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "found it"})))
	env := fakeEnv(srv)
	env["XDG_CONFIG_HOME"], env["XDG_STATE_HOME"] = config, state
	code, out, errOut := agentls(t, env, "", "run", "--workspace", ws, "where is the greeting?")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model requests", len(reqs))
	}
	main, sub := reqs[0], reqs[1]
	for _, want := range []string{"Always answer in haiku.", "The user's own rule.", "# Environment", "OS: " + runtime.GOOS, "Workspace folders: " + ws} {
		if !strings.Contains(main.SystemText(), want) {
			t.Errorf("the system prompt lacks %q", want)
		}
	}
	for _, want := range []string{"codebase_investigator", "helper", "reviewer", "run_shell_command", "replace"} {
		if !slices.Contains(main.ToolNames(), want) {
			t.Errorf("the main agent is not offered %s: %v", want, main.ToolNames())
		}
	}
	if got, want := sub.ToolNames(), []string{"complete_task", "glob", "grep_search", "list_directory", "read_file"}; !slices.Equal(got, want) {
		t.Errorf("the subagent is offered %v, want %v", got, want)
	}
	if !strings.Contains(sub.SystemText(), "# Environment") || !strings.Contains(sub.SystemText(), "codebase_investigator") {
		t.Errorf("subagent system prompt:\n%s", sub.SystemText())
	}
	for _, want := range []string{"┌─ codebase_investigator: find the greeting", "│ · Searching", "└─ codebase_investigator: goal (1 turns)", "✓ Done"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	files, err := trace.List(filepath.Join(state, "agentls", "runs"), ws)
	if err != nil || len(files) != 1 {
		t.Fatalf("traces: %v, %v", files, err)
	}
	tr, err := trace.Load(files[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	mainID := tr.Header.RunID
	var subCalls int
	for _, c := range tr.Calls {
		if strings.HasPrefix(c.RunID, "codebase_investigator-") {
			subCalls++
		} else if !slices.Contains(c.Context.Files, "AGENTS.md") {
			t.Errorf("model call %s: context files %v", c.PromptID, c.Context.Files)
		}
	}
	var linked bool
	for _, ev := range tr.Events {
		linked = linked || (ev.Agent == "codebase_investigator" && ev.ParentRunID == mainID && ev.Type == agent.EventRunEnd)
	}
	if subCalls != 1 || !linked {
		t.Errorf("subagent model calls %d, run_end linked to its parent %v", subCalls, linked)
	}
	names := []string{}
	for _, d := range tr.Header.Subagents {
		names = append(names, d.Name)
	}
	if !slices.Equal(names, []string{"codebase_investigator", "helper", "reviewer"}) {
		t.Errorf("header subagents = %v", names)
	}

	// The replay of a run with a subagent answers the subagent from the trace.
	code, out, errOut = agentls(t, nil, "", "replay", files[0].Path, "--workspace", ws)
	if code != 0 || !strings.Contains(out, "└─ codebase_investigator: goal (1 turns)") {
		t.Errorf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
}

// --model auto routes: a classifier call picks the model of the run.
func TestRunModelAuto(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Text(`{"model": "strong", "reason": "it needs design"}`)),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "designed"})))
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", t.TempDir(), "--model", "auto", "design a cache")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != agent.DefaultRouter.Classifier || reqs[1].Model != agent.DefaultRouter.Strong {
		t.Errorf("models: %v", reqs)
	}
	if !strings.Contains(out, "· model "+agent.DefaultRouter.Strong+": it needs design") {
		t.Errorf("output:\n%s", out)
	}
}

// A terminal run with a workspace custom agent and an approved shell
// command records a trace that replays through the same run builder: the
// custom agent runs again from the trace, and neither the model nor the
// command is called.
func TestTerminalRecordsAndReplaysCustomAgentAndShell(t *testing.T) {
	t.Parallel()
	ws := copyExample(t)
	write(t, filepath.Join(ws, ".agentls", "agents", "reviewer.md"), customAgent("reviewer"))
	write(t, filepath.Join(ws, "AGENTS.md"), "The marker word is periwinkle-7731.\n")
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("reviewer", map[string]any{"objective": "review main.go"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "looks fine"})),
		geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "touch ran.txt"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	path := filepath.Join(t.TempDir(), "run.jsonl")
	env := fakeEnv(srv)
	env["XDG_CONFIG_HOME"] = t.TempDir()
	code, out, errOut := agentls(t, env, "y\ny\n", "run", "--workspace", ws, "--trace", path, "review, then make ran.txt")
	if code != 0 {
		t.Fatalf("recording: exit %d\n%s\n%s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 || !strings.Contains(reqs[1].SystemText(), "periwinkle-7731") {
		t.Fatalf("%d model calls; the subagent's system prompt:\n%s", len(reqs), reqs[1].SystemText())
	}
	if err := os.Remove(filepath.Join(ws, "ran.txt")); err != nil {
		t.Fatalf("the recorded run did not run its command: %v\n%s", err, out)
	}

	code, out, errOut = agentls(t, nil, "", "replay", path, "--workspace", ws)
	if code != 0 || !strings.Contains(out, "The replay followed the recording (recorded stop: goal)") ||
		!strings.Contains(out, "└─ reviewer: goal") {
		t.Errorf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	if got := len(srv.Requests()); got != 4 {
		t.Errorf("the replay called the model: %d calls", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "ran.txt")); err == nil {
		t.Error("the replay ran the command")
	}
}
