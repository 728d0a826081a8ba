//go:build unix

package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/tools"
)

// The harness asks the run's Policy before every call, and the user through
// the Approver when the policy says so; shell commands always need one or
// the other.
func TestPolicyAndApprovals(t *testing.T) {
	t.Parallel()
	const rules = `
[[rule]]
name = "no rm"
commandPrefix = "rm"
decision = "deny"
denyMessage = "ask the user to delete files"

[[rule]]
commandPrefix = "echo"
decision = "allow"

[[rule]]
name = "generated code"
toolName = ["replace", "write_file"]
argsPattern = '"file_path":"gen/'
decision = "deny"
`
	yes := func(agent.Approval) (bool, error) { return true, nil }
	no := func(agent.Approval) (bool, error) { return false, nil }
	gone := func(agent.Approval) (bool, error) { return false, context.Canceled }
	tests := []struct {
		name     string
		rules    bool                               // use the policy above; else no Policy
		approver func(agent.Approval) (bool, error) // nil: no Approver
		call     *genai.FunctionCall
		want     func(root string) map[string]any
		asked    []string // the commands the user was asked about
		decided  []bool   // the answers on approval_decided events
		display  string
		end      agent.StopReason
	}{{
		name: "the user allows", approver: yes,
		call:  shellCall("echo hi > out.txt", "description", "write a file"),
		want:  func(string) map[string]any { return output("Exit code: 0\nOutput: (none)\n") },
		asked: []string{"echo hi > out.txt"}, decided: []bool{true}, display: "Ran `echo hi > out.txt` (exit 0)",
	}, {
		name: "the user denies", approver: no,
		call: shellCall("touch out.txt"),
		want: func(root string) map[string]any {
			return toolErr("the user denied running `touch out.txt` in " + root + ". Do not run it again; find another way or ask the user.")
		},
		asked: []string{"touch out.txt"}, decided: []bool{false}, display: "Denied by the user",
	}, {
		name: "nobody to ask",
		call: shellCall("touch out.txt"),
		want: func(root string) map[string]any {
			return toolErr("`touch out.txt` in " + root + " needs the user's approval, and this run cannot ask for it. Do not retry it; tell the user what you wanted to do.")
		},
	}, {
		name: "a rule denies", rules: true, approver: yes,
		call: shellCall("ls && rm -rf sub"),
		want: func(root string) map[string]any {
			return toolErr("denied by policy rule no rm: `ls && rm -rf sub` in " + root + " is not allowed (ask the user to delete files). Do not retry it; find another way or tell the user.")
		},
		display: "Denied by policy",
	}, {
		name: "a rule allows", rules: true, approver: no,
		call: shellCall("echo allowed"),
		want: func(string) map[string]any { return output("Exit code: 0\nOutput:\nallowed\n") },
	}, {
		name: "a rule allows only what it names", rules: true, approver: yes,
		call:  shellCall("echo a; touch out.txt"),
		want:  func(string) map[string]any { return output("Exit code: 0\nOutput:\na\n") },
		asked: []string{"echo a; touch out.txt"}, decided: []bool{true},
	}, {
		name: "a rule denies an edit", rules: true, approver: yes,
		call: call("write_file", map[string]any{"file_path": "gen/x.go", "content": "package gen\n"}),
		want: func(string) map[string]any {
			return toolErr("denied by policy rule generated code: write_file is not allowed. Do not retry it; find another way or tell the user.")
		},
	}, {
		name: "edits are not asked about", rules: true,
		call: call("write_file", map[string]any{"file_path": "x.go", "content": "package x\n"}),
		want: func(string) map[string]any {
			return output("The user accepted the change; x.go is updated (+1 \u22120).")
		},
	}, {
		name: "refused before asking", approver: yes,
		call: shellCall("cd / && ls"),
		want: func(string) map[string]any {
			return toolErr("`cd /` leaves the workspace; commands run inside it (use dir_path for another folder of the workspace)")
		},
	}, {
		name: "the run ends while the user decides", approver: gone,
		call:  shellCall("touch out.txt"),
		asked: []string{"touch out.txt"}, end: agent.StopError,
		decided: []bool{false}, // withdrawn

	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDisk(t, map[string]string{"ws/.agentls/policy.toml": rules, "ws/sub/a.txt": "a\n"})
			var approver *fakeApprover
			s := script{disk: d, calls: []*genai.FunctionCall{tt.call}, cfg: func(c *agent.Config) {
				if tt.rules {
					c.Policy = trustedEngine(t, d.root).WithMode(policy.ModeDefault)
				}
				if tt.approver != nil {
					approver = &fakeApprover{answer: tt.approver}
					c.Approver = approver
				}
			}}
			tr := play(t, s)
			if tt.end != "" {
				if tr.end.Reason != tt.end {
					t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, tt.end)
				}
			} else if diff := cmp.Diff([]reply{{Name: tt.call.Name, Response: tt.want(d.root)}}, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
			var asked []string
			if approver != nil {
				for _, ap := range approver.asked() {
					asked = append(asked, ap.Command)
					if ap.Dir != d.root || ap.Tool != "run_shell_command" {
						t.Errorf("approval %+v is not bound to the folder %s", ap, d.root)
					}
				}
			}
			if diff := cmp.Diff(tt.asked, asked); diff != "" {
				t.Errorf("asked (-want +got):\n%s", diff)
			}
			var requested int
			var decided []bool
			for _, ev := range tr.events {
				switch ev.Type {
				case agent.EventApprovalRequested:
					requested++
				case agent.EventApprovalDecided:
					decided = append(decided, *ev.Approval.Allowed)
				case agent.EventToolResult:
					if ev.Call.Name == tt.call.Name && tt.display != "" && ev.Result.Display != tt.display {
						t.Errorf("display = %q, want %q", ev.Result.Display, tt.display)
					}
				}
			}
			if requested != len(tt.asked) {
				t.Errorf("%d approval_requested events, want %d", requested, len(tt.asked))
			}
			if diff := cmp.Diff(tt.decided, decided); diff != "" {
				t.Errorf("approval_decided (-want +got):\n%s", diff)
			}
			_, err := os.Stat(filepath.Join(d.root, "out.txt"))
			if ran := err == nil; ran != (tt.name == "the user allows" || tt.name == "a rule allows only what it names") {
				t.Errorf("the command ran: %v", ran)
			}
		})
	}
}

// The approval carries what the user needs to decide: the command, its
// folder, the model's description and the rule "always" would add.
func TestApprovalContent(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{"ws/sub/a.txt": "a\n"})
	approver := &fakeApprover{}
	play(t, script{disk: d, cfg: func(c *agent.Config) { c.Approver = approver },
		calls: []*genai.FunctionCall{shellCall("go test ./... 2>&1 | tail -3", "dir_path", "sub", "description", "run the tests")}})
	want := []agent.Approval{{Tool: "run_shell_command", Command: "go test ./... 2>&1 | tail -3", Dir: filepath.Join(d.root, "sub"),
		Description: "run the tests", Rule: "go test, tail", RunID: "test", CallID: "test#1-0"}}
	if diff := cmp.Diff(want, approver.asked()); diff != "" {
		t.Errorf("approval (-want +got):\n%s", diff)
	}
}

// In plan mode the model is offered no tool that changes anything, and a
// call to one is answered as an unknown tool.
func TestPlanMode(t *testing.T) {
	t.Parallel()
	tr := play(t, script{env: func(e *tools.Env) { e.Mode = policy.ModePlan }, cfg: approveAll,
		calls: []*genai.FunctionCall{shellCall("ls"), call("replace", map[string]any{"file_path": "b.go", "old_string": "1", "new_string": "2"})}})
	const unknown = "; the tools you can call are: complete_task, glob, grep_search, list_directory, read_file, write_todos"
	want := []reply{
		{Name: "run_shell_command", Response: toolErr(`unknown tool "run_shell_command"` + unknown)},
		{Name: "replace", Response: toolErr(`unknown tool "replace"` + unknown)},
	}
	if diff := cmp.Diff(want, tr.replies(t)); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
	if len(tr.changes) != 0 {
		t.Errorf("changes proposed in plan mode: %v", tr.changes)
	}
}

// An agent sees and can call only the tools of its profile.
func TestAgentProfile(t *testing.T) {
	t.Parallel()
	tr := play(t, script{cfg: func(c *agent.Config) {
		c.Agent = agent.Definition{Name: "codebase_investigator", Tools: []string{"read_file", "grep_search"}}
	}, calls: []*genai.FunctionCall{
		call("write_file", map[string]any{"file_path": "x.go", "content": "x"}),
		call("read_file", map[string]any{"file_path": "c.txt", "limit": 1}),
	}})
	var decls []string
	for _, tool := range tr.model.requests()[0].Config.Tools {
		for _, d := range tool.FunctionDeclarations {
			decls = append(decls, d.Name)
		}
	}
	if diff := cmp.Diff([]string{"read_file", "grep_search", "complete_task"}, decls); diff != "" {
		t.Errorf("declarations (-want +got):\n%s", diff)
	}
	want := []reply{
		{Name: "write_file", Response: toolErr(`unknown tool "write_file"; the tools you can call are: complete_task, grep_search, read_file`)},
		{Name: "read_file", Response: output("[Showing lines 1-1 of 5. To read more, call read_file with offset 1.]\none\n")},
	}
	if diff := cmp.Diff(want, tr.replies(t)); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
}

// A rule can ask about any tool: the user is asked before the tool runs,
// with what the call does.
func TestAskRuleOnAnEditTool(t *testing.T) {
	t.Parallel()
	for _, allow := range []bool{true, false} {
		d := newDisk(t, map[string]string{"ws/.agentls/policy.toml": "[[rule]]\ntoolName = \"write_file\"\ndecision = \"ask_user\"\n"})
		approver := &fakeApprover{answer: func(agent.Approval) (bool, error) { return allow, nil }}
		tr := play(t, script{disk: d, calls: []*genai.FunctionCall{call("write_file", map[string]any{"file_path": "x.go", "content": "package x\n"})},
			cfg: func(c *agent.Config) {
				c.Policy, c.Approver = trustedEngine(t, d.root).WithMode(policy.ModeDefault), approver
			}})
		if diff := cmp.Diff([]agent.Approval{{Tool: "write_file", Description: "Writing x.go", RunID: "test", CallID: "test#1-0"}}, approver.asked()); diff != "" {
			t.Errorf("approval (-want +got):\n%s", diff)
		}
		want := output("The user accepted the change; x.go is updated (+1 \u22120).")
		if !allow {
			want = toolErr("the user denied running write_file. Do not run it again; find another way or ask the user.")
		}
		if diff := cmp.Diff([]reply{{Name: "write_file", Response: want}}, tr.replies(t)); diff != "" {
			t.Errorf("allow %v: function responses (-want +got):\n%s", allow, diff)
		}
	}
}

// trustedEngine loads the policy files of root, a folder the user trusts.
func trustedEngine(t *testing.T, root string) *policy.Engine {
	t.Helper()
	eng := policy.New(filepath.Join(t.TempDir(), "policy.toml"))
	st, err := eng.TrustState(root)
	if err == nil {
		err = eng.Trust(root, st.Hash)
	}
	if err == nil {
		err = eng.Load([]string{root})
	}
	if err != nil {
		t.Fatal(err)
	}
	return eng
}
