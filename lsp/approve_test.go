//go:build unix

package lsp_test

import (
	"slices"

	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/lsp/lsptest"
)

func touch(name string) geminitest.Turn {
	return geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "touch " + name, "description": "make " + name}))
}

func done() geminitest.Turn {
	return geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))
}

// runToEnd starts a run in the session and waits for its progress end
// (not a subagent's).
func runToEnd(t *testing.T, s *session, prompt string) string {
	t.Helper()
	from := len(s.ed.Messages())
	id, err := s.ed.Run(t.Context(), map[string]any{"prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, m, err := s.ed.Next(ctx, from, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && strings.Contains(string(m.Params), `"kind":"end"`) &&
			strings.Contains(string(m.Params), `"token":"agentls/`+id+`"`)
	})
	if err != nil {
		t.Fatalf("waiting for the run's end: %v", err)
	}
	return string(m.Params)
}

// question is the approval question for "touch name" in the session's
// folder, with its actions.
func question(s *session, name string) string {
	return "Run `touch " + name + "` in " + s.root + "?\nmake " + name +
		" [Allow once | Always allow `touch` | Always allow `touch` in this workspace (save) | Deny]"
}

func exists(s *session, name string) bool {
	_, err := os.Stat(filepath.Join(s.root, name))
	return err == nil
}

// The user answers the approval question with each of its actions.
func TestApprovalActions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		choose  string // the action's title starts with it; "" dismisses
		ran     bool
		replies []string // parts of the function response of each touch call
		asked   int      // questions for the two calls
	}{
		{name: "allow once", choose: "Allow once", ran: true, asked: 2,
			replies: []string{`"output":"Exit code: 0\nOutput: (none)\n"`, `"output":"Exit code: 0`}},
		{name: "always allow", choose: "Always allow `touch`", ran: true, asked: 1,
			replies: []string{`"output":"Exit code: 0`, `"output":"Exit code: 0`}},
		{name: "always allow and save", choose: "Always allow `touch` in this workspace", ran: true, asked: 1,
			replies: []string{`"output":"Exit code: 0`, `"output":"Exit code: 0`}},
		{name: "deny", choose: "Deny", asked: 2,
			replies: []string{`"error":"the user denied running ` + "`touch a.txt`"}},
		{name: "dismiss", choose: "", asked: 2,
			replies: []string{`"error":"the user denied running`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, touch("a.txt"), touch("b.txt"), done())
			s.ed.ShowMessageRequest = lsptest.Choose(tt.choose)
			if tt.choose == "" {
				s.ed.ShowMessageRequest = nil
			}
			s.ed.Initialize(t.Context(), s.root, nil, nil)
			runToEnd(t, s, "make two files")

			want := []string{question(s, "a.txt"), question(s, "b.txt")}[:tt.asked]
			if diff := cmp.Diff(want, s.ed.Questions()); diff != "" {
				t.Errorf("questions (-want +got):\n%s", diff)
			}
			reqs := s.gem.Requests()
			if len(reqs) != 3 {
				t.Fatalf("model calls = %d, want 3", len(reqs))
			}
			for i, part := range tt.replies {
				if resp := lastFunctionResponse(t, reqs[i+1]); !strings.Contains(resp, part) {
					t.Errorf("call %d: response %s, want %s", i+1, resp, part)
				}
			}
			if exists(s, "a.txt") != tt.ran || exists(s, "b.txt") != tt.ran {
				t.Errorf("a.txt made: %v, b.txt made: %v; want %v", exists(s, "a.txt"), exists(s, "b.txt"), tt.ran)
			}
			saved, _ := os.ReadFile(policy.WorkspaceFile(s.root))
			if wantSaved := tt.name == "always allow and save"; wantSaved != strings.Contains(string(saved), `commandPrefix = "touch"`) {
				t.Errorf("workspace policy file:\n%s", saved)
			}
		})
	}
}

// An answer the question did not offer is no answer: when no "always"
// action is offered (a command with a substitution), a reply whose title is
// empty, like the missing "always" action's, does not allow the command.
func TestApprovalAnswerNotOffered(t *testing.T) {
	t.Parallel()
	s := newSession(t, geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "touch $(echo a.txt)"})), done())
	var offered []string
	s.ed.ShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		for _, a := range p.Actions {
			offered = append(offered, a.Title)
		}
		return &protocol.MessageActionItem{Title: ""}
	}
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a file")
	if want := []string{"Allow once", "Deny"}; !slices.Equal(offered, want) {
		t.Fatalf("offered %q, want %q", offered, want)
	}
	reqs := s.gem.Requests()
	if resp := lastFunctionResponse(t, reqs[1]); !strings.Contains(resp, "the user denied") {
		t.Errorf("the model was told %s", resp)
	}
	if exists(s, "a.txt") {
		t.Error("the command ran on an answer that was not offered")
	}
}

// "Always allow" lasts for the session, across runs, until revoked with
// agentls.approvals; it can be saved to the workspace's policy file later.
func TestApprovalsCommand(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), done(), touch("b.txt"), done(), touch("c.txt"), done(), touch("d.txt"), done())
	s.ed.ShowMessageRequest = lsptest.Choose("Always allow `touch`")
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	runToEnd(t, s, "make b")
	if got := len(s.ed.Questions()); got != 1 {
		t.Errorf("%d questions, want 1: %q", got, s.ed.Questions())
	}
	rules := approvals(t, s, `{"action":"list"}`)
	if len(rules) != 1 || rules[0].ID != "session-1" || rules[0].Source != policy.SourceSession ||
		rules[0].Dir != s.root || !cmp.Equal(rules[0].CommandPrefix, []string{"touch"}) {
		t.Fatalf("rules = %+v", rules)
	}
	if rules := approvals(t, s, `{"action":"revoke","id":"session-1"}`); len(rules) != 0 {
		t.Errorf("after revoking: %+v", rules)
	}
	s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
	runToEnd(t, s, "make c")
	if got := len(s.ed.Questions()); got != 2 {
		t.Errorf("after revoking, %d questions, want 2", got)
	}
	if !exists(s, "c.txt") {
		t.Error("c.txt was not made")
	}

	// A session rule saved with the command moves into the workspace file.
	s.ed.ShowMessageRequest = lsptest.Choose("Always allow `touch`")
	runToEnd(t, s, "make d")
	rules = approvals(t, s, `{"action":"list"}`)
	if len(rules) != 1 || rules[0].Source != policy.SourceSession {
		t.Fatalf("rules = %+v", rules)
	}
	rules = approvals(t, s, `{"action":"save","id":"`+rules[0].ID+`"}`)
	file := policy.WorkspaceFile(s.root)
	if len(rules) != 1 || rules[0].ID != file+":1" || rules[0].Source != policy.SourceWorkspace {
		t.Errorf("after saving: %+v", rules)
	}

	// Without arguments the command shows the rules, for clients without a
	// plugin.
	approvalsRaw(t, s, nil)
	shown := s.ed.WaitFor("rules shown", func(m lsptest.Message) bool {
		return m.Method == protocol.MethodWindowShowMessage && strings.Contains(string(m.Params), "agentls rules:")
	})
	if !strings.Contains(string(shown.Params), file+":1: allow") {
		t.Errorf("shown: %s", shown.Params)
	}

	for _, bad := range []struct{ args, want string }{
		{`{"action":"revoke","id":"session-9"}`, `no rule \"session-9\"`},
		{`{"action":"revoke","id":"` + file + `:1"}`, "not a session rule"},
		{`{"action":"save","id":"session-9"}`, `no rule \"session-9\"`},
		{`{"action":"forget"}`, `action \"forget\" is not one of list, revoke, save`},
	} {
		_, err := s.ed.Server.ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandApprovals,
			Arguments: []protocol.LSPAny{protocol.LSPAny(bad.args)}})
		var rpcErr *jsonrpc2.Error
		if !asRPC(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, strings.ReplaceAll(bad.want, `\"`, `"`)) {
			t.Errorf("%s: error = %v, want InvalidParams saying %s", bad.args, err, bad.want)
		}
	}
}

// A workspace policy file decides before anyone is asked; a denial names
// its rule.
func TestWorkspacePolicyFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "ls -A"})), done())
	os.MkdirAll(filepath.Join(s.root, ".agentls"), 0o755)
	os.WriteFile(policy.WorkspaceFile(s.root), []byte(`[[rule]]
name = "no touching"
commandPrefix = "touch"
decision = "deny"

[[rule]]
commandPrefix = "ls"
decision = "allow"
`), 0o644)
	s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
	s.trust(t)
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	if q := s.ed.Questions(); len(q) != 0 {
		t.Errorf("asked %q", q)
	}
	reqs := s.gem.Requests()
	if resp := lastFunctionResponse(t, reqs[1]); !strings.Contains(resp, "denied by policy rule no touching") {
		t.Errorf("touch: %s", resp)
	}
	if resp := lastFunctionResponse(t, reqs[2]); !strings.Contains(resp, `"output":"Exit code: 0\nOutput:\n.agentls\n"`) {
		t.Errorf("ls: %s", resp)
	}
}

// A broken policy file is reported with its file and line; its good rules
// still apply.
func TestBrokenPolicyFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), done())
	os.MkdirAll(filepath.Join(s.root, ".agentls"), 0o755)
	os.WriteFile(policy.WorkspaceFile(s.root), []byte("[[rule]]\ncommandPrefix = \"touch\"\ndecision = \"allow\"\n\n[[rule]]\ncommandPrefix = \"rm\"\ndecision = \"never\"\n"), 0o644)
	s.trust(t)
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	warning := s.ed.WaitFor("policy warning", func(m lsptest.Message) bool {
		return m.Method == protocol.MethodWindowShowMessage && strings.Contains(string(m.Params), "policy rules ignored")
	})
	if !strings.Contains(string(warning.Params), policy.WorkspaceFile(s.root)+`:5: rule 2: decision \"never\"`) {
		t.Errorf("warning: %s", warning.Params)
	}
	if !exists(s, "a.txt") {
		t.Error("the good rule did not apply")
	}
}

// A repository's policy file allows nothing in a folder the user has not
// trusted: the command is asked about.
func TestUntrustedWorkspacePolicyFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), done())
	os.MkdirAll(filepath.Join(s.root, ".agentls"), 0o755)
	os.WriteFile(policy.WorkspaceFile(s.root), []byte("[[rule]]\ncommandPrefix = \"touch\"\ndecision = \"allow\"\n"), 0o644)
	s.ed.ShowMessageRequest = lsptest.Choose("Deny")
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	if q := s.ed.Questions(); len(q) != 1 {
		t.Errorf("asked %q, want one question", q)
	}
	if exists(s, "a.txt") {
		t.Error("an untrusted workspace's rule ran a command")
	}
}

// Cancelling a run while the user is asked withdraws the question, and the
// command never runs.
func TestCancelWhileAsking(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), done())
	asked := make(chan struct{})
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	s.ed.ShowMessageRequest = func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		close(asked)
		<-release // the user never answers
		return nil
	}
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"events": true})
	runID, err := s.ed.Run(t.Context(), map[string]any{"prompt": "make a"})
	if err != nil {
		t.Fatal(err)
	}
	<-asked
	b, _ := json.Marshal(map[string]string{"runId": runID})
	if _, err := s.ed.Server.ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandCancel, Arguments: []protocol.LSPAny{b}}); err != nil {
		t.Fatal(err)
	}
	if end := s.ed.ProgressEnd(); !strings.Contains(end, "aborted") {
		t.Errorf("progress end = %q", end)
	}
	s.ed.WaitFor("$/cancelRequest", isMethod(protocol.MethodCancelRequest))
	s.ed.WaitFor("approval_requested", isEvent("approval_requested"))
	if exists(s, "a.txt") {
		t.Error("the command ran")
	}
}

func approvals(t *testing.T, s *session, args string) []policy.Rule {
	t.Helper()
	return approvalsRaw(t, s, []protocol.LSPAny{protocol.LSPAny(args)})
}

func approvalsRaw(t *testing.T, s *session, args []protocol.LSPAny) []policy.Rule {
	t.Helper()
	res, err := s.ed.Server.ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandApprovals, Arguments: args})
	if err != nil {
		t.Fatalf("%s %s: %v", contract.CommandApprovals, args, err)
	}
	var out contract.ApprovalsResult
	if err := json.Unmarshal(res, &out); err != nil {
		t.Fatalf("answer %s: %v", res, err)
	}
	return out.Rules
}

// The shellTimeoutSeconds setting limits a command.
func TestShellTimeoutSetting(t *testing.T) {
	t.Parallel()
	s := newSession(t, geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "sleep 30"})), done())
	s.ed.ShowMessageRequest = lsptest.Choose("Allow once")
	s.ed.Initialize(t.Context(), s.root, nil, map[string]any{"shellTimeoutSeconds": 0.2})
	runToEnd(t, s, "wait")
	if resp := lastFunctionResponse(t, s.gem.Requests()[1]); !strings.Contains(resp, "timed out after 200ms") {
		t.Errorf("sleep: %s", resp)
	}
}
