package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/trace"
)

// A run writes its trace to the state directory, outside the workspace,
// without secrets; agentls runs lists it and agentls trace show sums it up.
func TestRunTracesToStateDir(t *testing.T) {
	t.Parallel()
	state := t.TempDir()
	dir := copyExample(t)
	srv := geminitest.NewServer(t, demoTurns()...)
	env := fakeEnv(srv)
	env["XDG_STATE_HOME"] = state
	env["MY_SERVICE_TOKEN"] = "tok_live_1234567890"
	code, out, errOut := agentls(t, env, "", "run", "--workspace", dir, "--yes", examplePrompt+" (token tok_live_1234567890)")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	m := regexp.MustCompile(`Trace: (\S+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no trace path in output:\n%s", out)
	}
	path := m[1]
	runsDir := filepath.Join(state, "agentls", "runs")
	if !strings.HasPrefix(path, runsDir) || filepath.Dir(path) != filepath.Dir(trace.Path(runsDir, dir, "x")) {
		t.Errorf("trace at %s, want under %s", path, runsDir)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"tok_live_1234567890", "test-key"} {
		if strings.Contains(string(b), secret) {
			t.Errorf("the trace holds %q", secret)
		}
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	runID := tr.Header.RunID
	if tr.End() == nil || tr.Header.Workspace != dir || len(tr.Calls) != 4 || len(tr.Header.Subagents) != 1 {
		t.Errorf("trace: end %v, workspace %s, %d calls, subagents %v", tr.End(), tr.Header.Workspace, len(tr.Calls), tr.Header.Subagents)
	}

	code, out, _ = agentls(t, env, "", "runs")
	if code != 0 || !strings.Contains(out, runID) || !strings.Contains(out, "goal") || !strings.Contains(out, "8333") || !strings.Contains(out, "Rename the function") {
		t.Errorf("runs: exit %d\n%s", code, out)
	}
	if _, out, _ = agentls(t, env, "", "runs", "--workspace", t.TempDir()); strings.Contains(out, runID) {
		t.Errorf("runs of another workspace list the run:\n%s", out)
	}
	if _, out, _ = agentls(t, env, "", "runs", "--workspace", dir); !strings.Contains(out, runID) {
		t.Errorf("runs of the workspace:\n%s", out)
	}
	code, out, _ = agentls(t, env, "", "trace", "show", runID)
	for _, want := range []string{"Stop       goal after 4 turns", "Tokens     8130 prompt, 146 output, 57 thoughts", "4 model calls",
		"proposals: 2 applied", "Tool calls (4)", "user denied", "Read main.go", "Changed main.go (+2 −2)"} {
		if !strings.Contains(out, want) {
			t.Errorf("trace show lacks %q:\n%s", want, out)
		}
	}
	if code != 0 {
		t.Errorf("trace show: exit %d", code)
	}
}

// A recorded run with edits and a shell command replays to the same
// proposals and the same command result, and runs no command.
func TestReplayReproducesRecordedRun(t *testing.T) {
	t.Parallel()
	recorded := copyExample(t)
	srv := geminitest.NewServer(t, demoTurnsWith("touch ran.txt && grep -c Greet main.go")...)
	path := filepath.Join(t.TempDir(), "run.jsonl")
	code, out, errOut := agentls(t, fakeEnv(srv), "y\ny\ny\n", "run", "--workspace", recorded, "--trace", path, examplePrompt)
	if code != 0 {
		t.Fatalf("recording: exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(filepath.Join(recorded, "ran.txt")); err != nil {
		t.Fatalf("the recorded run did not run its command: %v", err)
	}
	tr, err := trace.Load(path)
	if err != nil {
		t.Fatal(err)
	}

	fresh := copyExample(t)
	before, _ := os.ReadFile(filepath.Join(fresh, "main.go"))
	code, out, errOut = agentls(t, nil, "", "replay", path, "--workspace", fresh, "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	evs := jsonEvents(t, out)
	pick := func(evs []agent.Event) (diffs, shell []string) {
		for _, ev := range evs {
			switch {
			case ev.Type == agent.EventEditProposed:
				diffs = append(diffs, ev.Edit.Diff)
			case ev.Type == agent.EventToolResult && ev.Call.Name == "run_shell_command":
				shell = append(shell, ev.Result.Output)
			}
		}
		return diffs, shell
	}
	wantDiffs, wantShell := pick(tr.Events)
	gotDiffs, gotShell := pick(evs)
	if diff := cmp.Diff(wantDiffs, gotDiffs); diff != "" || len(gotDiffs) != 2 {
		t.Errorf("proposals (-recorded +replayed):\n%s", diff)
	}
	if diff := cmp.Diff(wantShell, gotShell); diff != "" || len(gotShell) != 1 || !strings.Contains(gotShell[0], "Output:\n4\n") {
		t.Errorf("shell results (-recorded +replayed):\n%s%q", diff, gotShell)
	}
	if end := evs[len(evs)-1]; end.Type != agent.EventRunEnd || end.End.Reason != agent.StopGoal {
		t.Errorf("last event = %+v", end)
	}
	if _, err := os.Stat(filepath.Join(fresh, "ran.txt")); err == nil {
		t.Error("the replay ran the command")
	}
	if after, _ := os.ReadFile(filepath.Join(fresh, "main.go")); string(after) != string(before) {
		t.Error("the replay without --apply wrote to the workspace")
	}
	if !strings.Contains(errOut, "no model call, no command runs") {
		t.Errorf("stderr:\n%s", errOut)
	}

	// With --apply the changes reach a scratch copy, still without the command.
	code, out, _ = agentls(t, nil, "", "replay", "--apply", path, "--workspace", fresh)
	m := regexp.MustCompile(`The scratch copy is in (\S+)`).FindStringSubmatch(out)
	if code != 0 || m == nil {
		t.Fatalf("replay --apply: exit %d\n%s", code, out)
	}
	t.Cleanup(func() { os.RemoveAll(m[1]) })
	if b, _ := os.ReadFile(filepath.Join(m[1], "main.go")); !strings.Contains(string(b), "func Greet(") {
		t.Errorf("scratch main.go:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(m[1], "ran.txt")); err == nil {
		t.Error("the replay ran the command in the scratch copy")
	}
}

// --json prints one event per line, numbered, and nothing else.
func TestRunJSON(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, demoTurns()...)
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", copyExample(t), "--yes", "--json", examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	evs := jsonEvents(t, out)
	if evs[0].Type != agent.EventRunStart || evs[len(evs)-1].Type != agent.EventRunEnd {
		t.Errorf("events from %s to %s", evs[0].Type, evs[len(evs)-1].Type)
	}
	seen := map[agent.EventType]bool{}
	for _, ev := range evs {
		seen[ev.Type] = true
	}
	for _, want := range []agent.EventType{agent.EventThought, agent.EventToolCall, agent.EventEditProposed, agent.EventEditDecided, agent.EventToolResult, agent.EventUsage} {
		if !seen[want] {
			t.Errorf("no %s event", want)
		}
	}
}

// jsonEvents reads --json output: every line an event, numbered from 1.
func jsonEvents(t *testing.T, out string) []agent.Event {
	t.Helper()
	var evs []agent.Event
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for n := int64(1); sc.Scan(); n++ {
		var ev jsonEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %d is not an event: %v\n%s", n, err, sc.Text())
		}
		if ev.Seq != n {
			t.Errorf("line %d has seq %d", n, ev.Seq)
		}
		evs = append(evs, ev.Event)
	}
	if len(evs) == 0 {
		t.Fatal("no events")
	}
	return evs
}

// A run prunes the trace folder with the retention of the user's settings
// file, and waits for it before it exits.
func TestRunPrunesTraces(t *testing.T) {
	t.Parallel()
	state, config := t.TempDir(), t.TempDir()
	runsDir := filepath.Join(state, "agentls", "runs")
	os.MkdirAll(filepath.Join(config, "agentls"), 0o755)
	if err := os.WriteFile(filepath.Join(config, "agentls", "settings.json"), []byte(`{"traceMaxAgeDays": 10}`), 0o644); err != nil {
		t.Fatal(err)
	}
	old, young := filepath.Join(runsDir, "aaaaaaaaaaaa", "old.jsonl"), filepath.Join(runsDir, "aaaaaaaaaaaa", "young.jsonl")
	for p, age := range map[string]time.Duration{old: 11 * 24 * time.Hour, young: 9 * 24 * time.Hour} {
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		at := time.Now().Add(-age)
		os.Chtimes(p, at, at)
	}
	done := geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))
	srv := geminitest.NewServer(t, done, done, done) // three runs
	env := fakeEnv(srv)
	env["XDG_STATE_HOME"], env["XDG_CONFIG_HOME"] = state, config
	if code, out, errOut := agentls(t, env, "", "run", "--workspace", copyExample(t), "hi"); code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a trace older than the settings' 10 days is still there: %v", err)
	}
	if _, err := os.Stat(young); err != nil {
		t.Errorf("a younger trace is gone: %v", err)
	}

	// The next runs within the hour do not prune again (each is a new
	// process: the folder says when it was pruned); one after it does.
	older := filepath.Join(runsDir, "aaaaaaaaaaaa", "older.jsonl")
	if err := os.WriteFile(older, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-20 * 24 * time.Hour)
	os.Chtimes(older, at, at)
	run := func() {
		t.Helper()
		if code, out, errOut := agentls(t, env, "", "run", "--workspace", copyExample(t), "hi"); code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
		}
	}
	run()
	if _, err := os.Stat(older); err != nil {
		t.Errorf("a run within the hour of the last prune pruned again: %v", err)
	}
	stamp := filepath.Join(runsDir, ".pruned")
	hourAgo := time.Now().Add(-61 * time.Minute)
	if err := os.Chtimes(stamp, hourAgo, hourAgo); err != nil {
		t.Fatalf("the folder does not say when it was pruned: %v", err)
	}
	run()
	if _, err := os.Stat(older); !os.IsNotExist(err) {
		t.Errorf("a run an hour after the last prune did not prune: %v", err)
	}
}

// A run that changes a file twice through a symlink replays in memory: the
// replay keeps the first change where the tools read it, the file the link
// leads to, so the second change finds it; the disk is not touched.
func TestReplayThroughALink(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	const text = "# Notes\nold line\n"
	write(t, filepath.Join(dir, "real.md"), text)
	if err := os.MkdirAll(filepath.Join(dir, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../real.md", filepath.Join(dir, "docs", "link.md")); err != nil {
		t.Skipf("no symlinks: %v", err)
	}
	call := func(name string, args map[string]any) geminitest.Turn {
		return geminitest.Reply(geminitest.Call(name, args))
	}
	srv := geminitest.NewServer(t,
		call("replace", map[string]any{"file_path": "docs/link.md", "old_string": "old line", "new_string": "new line"}),
		call("replace", map[string]any{"file_path": "docs/link.md", "old_string": "new line", "new_string": "newer line"}),
		call("complete_task", map[string]any{"result": "done"}))
	path := filepath.Join(t.TempDir(), "run.jsonl")
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--yes", "--workspace", dir, "--trace", path, "update the notes")
	if code != 0 || !strings.Contains(out, "docs/link.md → real.md") {
		t.Fatalf("recording: exit %d\n%s\n%s", code, out, errOut)
	}
	write(t, filepath.Join(dir, "real.md"), text) // as it was when the run began
	code, out, errOut = agentls(t, nil, "", "replay", path, "--workspace", dir)
	if code != 0 || strings.Contains(out+errOut, "diverged") {
		t.Fatalf("replay: exit %d\n%s\n%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "real.md")); string(b) != text {
		t.Errorf("the replay without --apply wrote real.md:\n%s", b)
	}
}
