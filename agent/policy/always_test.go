package policy

import (
	"errors"
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
)

// An always answer is offered for a command line a prefix may allow, an
// MCP server's tool and the hosts of a fetch; it says what it allows.
func TestAlwaysFor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		ap     agent.Approval
		ok     bool
		text   string
		quoted string
	}{
		{"command", agent.Approval{Tool: ShellTool, Command: "go test ./... && go vet ./..."}, true, "go test, go vet", "`go test`, `go vet`"},
		{"complex command", agent.Approval{Tool: ShellTool, Command: "echo $(id)"}, false, "", ""},
		{"mcp", agent.Approval{Tool: "mcp_fs_read", Server: "fs", ServerTool: "read"}, true, "fs tool read", "`fs` tool `read`"},
		{"mcp, hidden characters", agent.Approval{Tool: "mcp_fs_read", Server: "fs\u202e", ServerTool: "re\x1bad"}, true, "fs\\u202e tool re\\x1bad", "`fs\\u202e` tool `re\\x1bad`"},
		{"hosts", agent.Approval{Tool: "web_fetch", Hosts: []string{"go.dev", "pkg.go.dev"}}, true, "go.dev, pkg.go.dev", "`go.dev`, `pkg.go.dev`"},
		{"an IPv6 host no rule can name", agent.Approval{Tool: "web_fetch", Hosts: []string{"::1"}}, false, "", ""},
		{"loop question", agent.Approval{Kind: agent.ApprovalLoop, Tool: "loop_detection"}, false, "", ""},
		{"a tool of no kind", agent.Approval{Tool: "custom"}, false, "", ""},
	} {
		a, ok := AlwaysFor(tt.ap, "/ws")
		if ok != tt.ok || ok && (a.Text() != tt.text || a.Quoted() != tt.quoted) {
			t.Errorf("%s: %v %q %q, want %v %q %q", tt.name, ok, a.Text(), a.Quoted(), tt.ok, tt.text, tt.quoted)
		}
	}
}

// "Always allow `fs` tool `read`" allows that tool of that server, and
// nothing else: not the same tool of another server, not another tool,
// not what a rule denies; a pattern character in a name is literal.
func TestAllowAlwaysMCP(t *testing.T) {
	t.Parallel()
	e, _ := engine(t, "[[rule]]\nmcpName = \"fs\"\ntoolName = \"delete\"\ndecision = \"deny\"\n", "")
	p := e.WithMode(ModeDefault)
	if d := p.Check(mcpCall("fs", "read", false)); d.Verdict != agent.VerdictAsk {
		t.Fatalf("before the answer: %+v", d)
	}
	for _, ap := range []agent.Approval{{Server: "fs", ServerTool: "read"}, {Server: "fs", ServerTool: "delete"}, {Server: "f*", ServerTool: "*"}} {
		a, _ := AlwaysFor(ap, "")
		if _, err := e.AllowAlways(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		call agent.PolicyCall
		want agent.Verdict
		rule string
	}{
		{mcpCall("fs", "read", false), agent.VerdictAllow, "always allow `fs` tool `read`"},
		{mcpCall("other", "read", false), agent.VerdictAsk, ""}, // same tool, another server
		{mcpCall("fs", "write", false), agent.VerdictAsk, ""},   // another tool
		{mcpCall("fs", "delete", false), agent.VerdictDeny, ""}, // never beats a denial
		{mcpCall("f*", "*", false), agent.VerdictAllow, "always allow `f*` tool `*`"},
		{mcpCall("fx", "write", false), agent.VerdictAsk, ""}, // "f*" is a name, not a pattern
		{tool("read", nil), agent.VerdictAsk, ""},             // not an MCP call
	} {
		d := p.Check(tt.call)
		if d.Verdict != tt.want || tt.rule != "" && d.Rule != tt.rule {
			t.Errorf("%s: %+v, want %s %s", tt.call.Tool, d, tt.want, tt.rule)
		}
	}
	if d := e.WithMode(ModePlan).Check(mcpCall("fs", "read", false)); d.Verdict != agent.VerdictDeny {
		t.Errorf("plan mode: %+v, want deny", d)
	}
}

// "Always allow `go.dev`" allows fetches that reach only that host (in any
// case), not its subdomains, not a call that also reaches another host.
func TestAllowAlwaysHosts(t *testing.T) {
	t.Parallel()
	e, _ := engine(t, "[[rule]]\ntoolName = \"web_fetch\"\nhost = \"bad.go.dev\"\ndecision = \"deny\"\n", "")
	p := e.WithMode(ModeDefault)
	for _, hosts := range [][]string{{"go.dev"}, {"a.example", "b.example"}, {"*.evil.example"}} {
		a, ok := AlwaysFor(agent.Approval{Tool: "web_fetch", Hosts: hosts}, "")
		if !ok {
			t.Fatalf("no always answer for %q", hosts)
		}
		if _, err := e.AllowAlways(a); err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		hosts []string
		want  agent.Verdict
	}{
		{[]string{"go.dev"}, agent.VerdictAllow},
		{[]string{"GO.DEV"}, agent.VerdictAllow},
		{[]string{"pkg.go.dev"}, agent.VerdictAsk}, // no subdomains
		{[]string{"bad.go.dev"}, agent.VerdictDeny},
		{[]string{"go.dev.evil.example"}, agent.VerdictAsk},
		{[]string{"go.dev", "other.example"}, agent.VerdictAsk}, // every host must be allowed
		{[]string{"a.example", "b.example"}, agent.VerdictAllow},
		{[]string{"b.example"}, agent.VerdictAllow},
		{[]string{"x.evil.example"}, agent.VerdictAsk}, // "*.evil.example" is a name, not a pattern
		{[]string{"*.evil.example"}, agent.VerdictAllow},
	} {
		if d := p.Check(fetch(tt.hosts...)); d.Verdict != tt.want {
			t.Errorf("%q: %+v, want %s", tt.hosts, d, tt.want)
		}
	}
	other := agent.PolicyCall{Agent: "main", Tool: "other_fetch", Kind: agent.KindFetch, Approval: &agent.Approval{Tool: "other_fetch", Hosts: []string{"go.dev"}}}
	if d := p.Check(other); d.Verdict != agent.VerdictAsk {
		t.Errorf("another tool reaching go.dev: %+v, want ask", d)
	}
}

// Saved, the answers are rules of the workspace's file that a new session
// reads and applies as it does saved shell answers; saving never trusts
// the repository's own allow rules.
func TestSaveAlways(t *testing.T) {
	t.Parallel()
	e, ws := engine(t, "", "")
	file := WorkspaceFile(ws)
	for _, ap := range []agent.Approval{{Server: "fs", ServerTool: "re[ad"}, {Tool: "web_fetch", Hosts: []string{"go.dev", "Pkg.Go.Dev"}}} {
		a, _ := AlwaysFor(ap, ws)
		r, err := e.AllowAlways(a)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.Save(r.ID, file); err != nil {
			t.Fatal(err)
		}
	}
	text, _ := os.ReadFile(file)
	want := "[[rule]]\nname = \"always allow `fs` tool `re[ad`\"\ntoolName = \"re\\\\[ad\"\nmcpName = \"fs\"\ndecision = \"allow\"\n\n" +
		"[[rule]]\nname = \"always allow `go.dev`, `Pkg.Go.Dev`\"\ntoolName = \"web_fetch\"\nhost = [\"go.dev\",\"pkg.go.dev\"]\ndecision = \"allow\"\n"
	if diff := cmp.Diff(want, string(text)); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	if len(e.Rules()) != 2 || e.Rules()[0].Source != SourceWorkspace {
		t.Errorf("rules after saving: %+v", e.Rules())
	}
	check := func(e *Engine, call agent.PolicyCall, want agent.Verdict) {
		t.Helper()
		if d := e.WithMode(ModeDefault).Check(call); d.Verdict != want {
			t.Errorf("%s %+v: %+v, want %s", call.Tool, call.Approval, d, want)
		}
	}
	e2 := New(e.userFile)
	if err := e2.Load([]string{ws}); err != nil {
		t.Fatal(err)
	}
	check(e2, mcpCall("fs", "re[ad", false), agent.VerdictAllow)
	check(e2, mcpCall("fs", "read", false), agent.VerdictAsk)
	check(e2, mcpCall("gh", "re[ad", false), agent.VerdictAsk)
	check(e2, fetch("pkg.go.dev", "go.dev"), agent.VerdictAllow)
	check(e2, fetch("x.go.dev"), agent.VerdictAsk)

	// A repository that ships an allow rule: the saved answer holds for
	// the session only, and the folder stays untrusted.
	e3, ws3 := engine(t, "", "[[rule]]\nmcpName = \"*\"\ndecision = \"allow\"\n")
	check(e3, mcpCall("gh", "x", false), agent.VerdictAsk)
	a, _ := AlwaysFor(agent.Approval{Server: "fs", ServerTool: "read"}, ws3)
	r, _ := e3.AllowAlways(a)
	var untrusted *UntrustedError
	if _, err := e3.Save(r.ID, WorkspaceFile(ws3)); !errors.As(err, &untrusted) {
		t.Fatalf("Save: %v, want an UntrustedError", err)
	}
	check(e3, mcpCall("fs", "read", false), agent.VerdictAllow)
	check(e3, mcpCall("gh", "x", false), agent.VerdictAsk)
}
