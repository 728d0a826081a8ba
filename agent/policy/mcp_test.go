package policy

import (
	"encoding/json"
	"testing"

	"github.com/agentls/agentls/agent"
)

// mcpCall is a call of the tool of an MCP server, as the harness gives it
// to the policy.
func mcpCall(server, tool string, trusted bool) agent.PolicyCall {
	name := "mcp_" + server + "_" + tool
	args := json.RawMessage(`{"path":"a.txt"}`)
	return agent.PolicyCall{Agent: "main", Tool: name, Args: args, Trusted: trusted,
		Approval: &agent.Approval{Tool: name, Server: server, ServerTool: tool, Args: args}}
}

// MCP calls ask unless a rule decides them; trust allows what no rule
// decides; rules match a server by mcpName and its tools by either name;
// plan mode denies them all.
func TestCheckMCP(t *testing.T) {
	t.Parallel()
	const user = `
[[rule]]
mcpName = "fs"
toolName = "read_text_file"
decision = "allow"

[[rule]]
mcpName = "fs"
toolName = "mcp_fs_write_file"
decision = "deny"
denyMessage = "no writes"

[[rule]]
mcpName = "git*"
decision = "ask_user"
`
	e, _ := engine(t, user, "")
	p := e.WithMode(ModeDefault)
	tests := []struct {
		name string
		call agent.PolicyCall
		want agent.Verdict
		rule string
	}{
		{"no rule asks", mcpCall("other", "x", false), agent.VerdictAsk, ""},
		{"trust allows what no rule decides", mcpCall("other", "x", true), agent.VerdictAllow, TrustedRule},
		{"the server's own tool name", mcpCall("fs", "read_text_file", false), agent.VerdictAllow, ""},
		{"the mcp_ name", mcpCall("fs", "write_file", true), agent.VerdictDeny, ""},
		{"a rule that asks wins over trust", mcpCall("github", "create_issue", true), agent.VerdictAsk, ""},
		{"mcpName matches only MCP calls", tool("read_text_file", nil), agent.VerdictAsk, ""},
	}
	for _, tt := range tests {
		d := p.Check(tt.call)
		if d.Verdict != tt.want || (tt.rule != "" && d.Rule != tt.rule) {
			t.Errorf("%s: %+v, want %s %s", tt.name, d, tt.want, tt.rule)
		}
	}
	if d := e.WithMode(ModePlan).Check(mcpCall("other", "x", true)); d.Verdict != agent.VerdictDeny {
		t.Errorf("plan mode: %+v", d)
	}
}

func TestMCPNameRuleErrors(t *testing.T) {
	t.Parallel()
	_, err := ParseFile("p.toml", "[[rule]]\nmcpName = \"[\"\ndecision = \"allow\"\n\n[[rule]]\nmcpName = \"fs\"\ncommandPrefix = \"ls\"\ndecision = \"allow\"\n", SourceUser)
	want := "p.toml:1: rule 1: mcpName \"[\" is not a name or a pattern\np.toml:5: rule 2: mcpName cannot be combined with commandPrefix, commandRegex or pathPattern"
	if err == nil || err.Error() != want {
		t.Errorf("errors %v, want %s", err, want)
	}
}

func TestTrustsFolder(t *testing.T) {
	t.Parallel()
	e, ws := engine(t, "", "# the team's rules\n")
	p := e.WithMode(ModeDefault)
	if p.TrustsFolder(ws) {
		t.Fatal("a new folder is trusted")
	}
	st, err := e.TrustState(ws)
	if err == nil {
		err = e.Trust(ws, st.Hash)
	}
	if err != nil {
		t.Fatal(err)
	}
	if !p.TrustsFolder(ws + "/") {
		t.Error("a trusted folder is not")
	}
	write(t, WorkspaceFile(ws), "[[rule]]\ntoolName = \"*\"\ndecision = \"allow\"\n")
	if p.TrustsFolder(ws) {
		t.Error("a folder is trusted after its policy file changed")
	}
	if (Policy{}).TrustsFolder(ws) {
		t.Error("a policy without an engine trusts")
	}
}
