package tools_test

import (
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

// Edits of one file in one turn are proposed one after another in the
// model's order, each computed against the content the previous one left;
// read-only calls of the turn do not wait for them; every result goes back
// to the model in the model's order.
func TestOneTurnManyCalls(t *testing.T) {
	t.Parallel()
	const (
		a0 = "alpha\nbeta\nalpha\ngamma\nalpha\n"
		a1 = "alpha\nBETA\nalpha\ngamma\nalpha\n"
		a2 = "alpha\nBeta\nalpha\ngamma\nalpha\n"
		a3 = "final\n"
	)
	// The spellings of a.txt the later edits use: they must share the
	// first edit's lock.
	for _, spelling := range []string{"a.txt", "/ws/a.txt", "./x/../a.txt"} {
		t.Run(spelling, func(t *testing.T) {
			t.Parallel()
			// The first proposal is answered only once every read-only call
			// has returned: they must not wait for it.
			gate := make(chan struct{})
			readOnly := 0
			watch := func(ev agent.Event) {
				if ev.Type == agent.EventToolResult && ev.Call.Name != "replace" && ev.Call.Name != "write_file" {
					if readOnly++; readOnly == 3 {
						close(gate)
					}
				}
			}
			calls := []*genai.FunctionCall{
				call("read_file", map[string]any{"file_path": "c.txt"}),
				call("replace", map[string]any{"file_path": "a.txt", "old_string": "beta", "new_string": "BETA"}),
				call("list_directory", map[string]any{"dir_path": "."}),
				call("replace", map[string]any{"file_path": spelling, "old_string": "BETA", "new_string": "Beta"}),
				call("read_file", map[string]any{"file_path": "b.go"}),
				call("write_file", map[string]any{"file_path": spelling, "content": a3}),
			}
			tr := play(t, script{answers: []answer{{gate: gate}}, calls: calls, watch: watch})

			if tr.end.Reason != agent.StopGoal {
				t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, agent.StopGoal)
			}
			accepted := func(stat string) map[string]any {
				return output("The user accepted the change; a.txt is updated (" + stat + ").")
			}
			wantReplies := []reply{
				{Name: "read_file", Response: output("one\ntwo\nthree\nfour\nfive\n")},
				{Name: "replace", Response: accepted("+1 \u22121")},
				{Name: "list_directory", Response: output(".:\na.txt\nb.go\nc.txt\n")},
				{Name: "replace", Response: accepted("+1 \u22121")},
				{Name: "read_file", Response: output("package b\n\nfunc f() int { return 1 }\n")},
				{Name: "write_file", Response: accepted("+1 \u22125")},
			}
			if diff := cmp.Diff(wantReplies, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
			wantChanges := []agent.Change{
				{Path: "/ws/a.txt", Name: "a.txt", Target: "/ws/a.txt", Old: a0, New: a1, Tool: "replace"},
				{Path: "/ws/a.txt", Name: "a.txt", Target: "/ws/a.txt", Old: a1, New: a2, Tool: "replace"},
				{Path: "/ws/a.txt", Name: "a.txt", Target: "/ws/a.txt", Old: a2, New: a3, Tool: "write_file"},
			}
			if diff := cmp.Diff(wantChanges, tr.changes, cmpopts.IgnoreFields(agent.Change{}, "RunID", "CallID")); diff != "" {
				t.Errorf("proposed changes (-want +got):\n%s", diff)
			}

			// The calls are announced in the model's order before any runs.
			var announced []string
			for _, s := range tr.steps() {
				if s.Type == agent.EventToolCall {
					announced = append(announced, s.Display)
				}
			}
			wantAnnounced := []string{"Reading c.txt", "Editing a.txt", "Listing .", "Editing " + spelling, "Reading b.go", "Writing " + spelling}
			if diff := cmp.Diff(wantAnnounced, announced); diff != "" {
				t.Errorf("tool_call displays (-want +got):\n%s", diff)
			}
			if first := slices.IndexFunc(tr.steps(), func(s step) bool { return s.Type != agent.EventToolCall }); first != len(calls) {
				t.Errorf("first event after the tool_calls is at %d, want %d", first, len(calls))
			}
		})
	}
}

// Calls that change one file share a lock however the model spells the
// path; calls that change different files do not.
func TestLocks(t *testing.T) {
	t.Parallel()
	fsys := newMemFS(defaultFiles)
	lockers := make(map[string]agent.Locker)
	for _, tool := range tools.Builtin(tools.Env{FS: fsys, Proposer: &fakeProposer{fs: fsys}}) {
		if l, ok := tool.(agent.Locker); ok {
			lockers[tool.Declaration().Name] = l
		}
	}
	if diff := cmp.Diff([]string{"replace", "run_shell_command", "save_memory", "write_file"}, slices.Sorted(maps.Keys(lockers))); diff != "" {
		t.Fatalf("tools with locks (-want +got):\n%s", diff)
	}
	type lockedCall struct {
		tool string
		path any
	}
	tests := []struct {
		a, b  lockedCall
		share bool
	}{
		{lockedCall{"replace", "a.txt"}, lockedCall{"replace", "a.txt"}, true},
		{lockedCall{"replace", "a.txt"}, lockedCall{"replace", "/ws/a.txt"}, true},
		{lockedCall{"replace", "a.txt"}, lockedCall{"write_file", "./x/../a.txt"}, true},
		{lockedCall{"write_file", "new.go"}, lockedCall{"write_file", "/ws/new.go"}, true},
		{lockedCall{"replace", "a.txt"}, lockedCall{"replace", "b.go"}, false},
		{lockedCall{"replace", "a.txt"}, lockedCall{"write_file", "sub/a.txt"}, false},
		// Arguments that name no path do not tell which file: lock all.
		{lockedCall{"replace", 3}, lockedCall{"write_file", "b.go"}, true},
		{lockedCall{"replace", "a.txt"}, lockedCall{"write_file", nil}, true},
	}
	locks := func(c lockedCall) []string {
		args := map[string]any{"old_string": "x", "new_string": "y", "content": "z"}
		if c.path != nil {
			args["file_path"] = c.path
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		return lockers[c.tool].Locks(raw)
	}
	for _, tt := range tests {
		la, lb := locks(tt.a), locks(tt.b)
		share := slices.Contains(la, "*") || slices.Contains(lb, "*") || slices.ContainsFunc(la, func(l string) bool { return slices.Contains(lb, l) })
		if share != tt.share {
			t.Errorf("%v and %v: locks %q and %q share = %v, want %v", tt.a, tt.b, la, lb, share, tt.share)
		}
	}
}
