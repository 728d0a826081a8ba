//go:build unix

package lsp_test

import (
	"os"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/lsp/lsptest"
)

func shellTurn(command, description string) geminitest.Turn {
	return geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": command, "description": description}))
}

// What the user is asked about is what runs: every line of the command,
// and the characters that could hide part of it escaped and flagged.
func TestQuestionShowsWhatRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, command, description string
		want                       []string // parts of the question
	}{
		{name: "carriage return", command: "touch a.txt\r go test ./...", want: []string{`touch a.txt\x0d go test ./...`, "Warning"}},
		{name: "escape sequence", command: "touch a.txt; echo \x1b[2K\x1b[1Ago test", want: []string{`\x1b[2K\x1b[1A`, "Warning"}},
		{name: "bidi override", command: "echo \u202e; touch a.txt", want: []string{`\u202e`, "Warning"}},
		{name: "zero width", command: "go test\u200b; touch a.txt", want: []string{`go test\u200b`, "Warning"}},
		{name: "every line", command: "go test ./...\n\n\n\n\ntouch a.txt",
			want: []string{"Run this command of 6 lines in ", "\n    go test ./...\n", "\n    touch a.txt"}},
		{name: "description", command: "touch a.txt", description: "run the tests\u2067\r\x1b[2K", want: []string{`run the tests\u2067\x0d\x1b[2K`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := newSession(t, shellTurn(tt.command, tt.description), done())
			s.ed.ShowMessageRequest = lsptest.Choose("Deny")
			s.ed.Initialize(t.Context(), s.root, nil, nil)
			runToEnd(t, s, "test")
			q := s.ed.Questions()
			if len(q) != 1 {
				t.Fatalf("questions %q, want one", q)
			}
			for _, part := range tt.want {
				if !strings.Contains(q[0], part) {
					t.Errorf("question %q does not hold %q", q[0], part)
				}
			}
			if strings.ContainsAny(q[0], "\r\x1b\u202e\u2067\u200b") {
				t.Errorf("question %q holds raw control characters", q[0])
			}
			if exists(s, "a.txt") {
				t.Error("the denied command ran")
			}
		})
	}
}

// A workspace's allow rules apply once the user trusts its policy file, after
// seeing them; a change to the file needs trust again.
func TestTrustWorkspacePolicyFile(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), done(), touch("b.txt"), done(), touch("c.txt"), done())
	os.MkdirAll(s.root+"/.agentls", 0o755)
	os.WriteFile(policy.WorkspaceFile(s.root), []byte("[[rule]]\ncommandPrefix = \"touch\"\ndecision = \"allow\"\n"), 0o644)
	s.ed.ShowMessageRequest = func(p *protocol.ShowMessageRequestParams) *protocol.MessageActionItem {
		if strings.HasPrefix(p.Message, "Trust ") {
			return lsptest.Choose("Trust")(p)
		}
		return lsptest.Choose("Deny")(p)
	}
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	if exists(s, "a.txt") {
		t.Fatal("an untrusted rule ran a command")
	}
	approvals(t, s, `{"action": "trust"}`)
	q := s.ed.Questions()
	if want := "Trust the agentls configuration of " + s.root + " as it is now? The repository's configuration would then:\n" +
		"- allow without asking: allow commands starting with `touch` (" + policy.WorkspaceFile(s.root) + ":1)\n" +
		"A change to .agentls/policy.toml or .agentls/settings.json needs trust again. [Trust | Do not trust]"; q[len(q)-1] != want {
		t.Errorf("trust question:\n%s\nwant\n%s", q[len(q)-1], want)
	}
	runToEnd(t, s, "make b")
	if !exists(s, "b.txt") {
		t.Error("the trusted rule did not apply")
	}
	os.WriteFile(policy.WorkspaceFile(s.root), []byte("[[rule]]\ncommandPrefix = \"touch\"\ndecision = \"allow\"\n# changed\n"), 0o644)
	runToEnd(t, s, "make c")
	if exists(s, "c.txt") {
		t.Error("a changed policy file kept its trust")
	}
}

// Saving an "always allow" answer to a workspace whose policy file has
// allow rules of its own does not trust them: the user is told how to.
func TestSaveDoesNotTrustTheRepository(t *testing.T) {
	t.Parallel()
	s := newSession(t, touch("a.txt"), shellTurn("ls", ""), done())
	os.MkdirAll(s.root+"/.agentls", 0o755)
	os.WriteFile(policy.WorkspaceFile(s.root), []byte("[[rule]]\ncommandRegex = \".*\"\ndecision = \"allow\"\n"), 0o644)
	s.ed.ShowMessageRequest = lsptest.Choose("Always allow `touch` in this workspace")
	s.ed.Initialize(t.Context(), s.root, nil, nil)
	runToEnd(t, s, "make a")
	if !exists(s, "a.txt") {
		t.Error("the allowed command did not run")
	}
	q := s.ed.Questions()
	if len(q) != 2 || !strings.HasPrefix(q[1], "Run `ls`") {
		t.Errorf("questions %q; want ls asked about too", q)
	}
	s.ed.WaitFor("trust advice", func(m lsptest.Message) bool {
		return m.Method == protocol.MethodWindowShowMessage && strings.Contains(string(m.Params), "allow rules of its own") &&
			strings.Contains(string(m.Params), `\"action\": \"trust\"`)
	})
}
