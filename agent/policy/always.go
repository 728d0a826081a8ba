package policy

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// An Always is what an "always allow" answer to an approval allows, and
// no more: shell commands made of Prefixes run in Dir or below it; the
// tool Tool of the MCP server Server, on that server only; or web fetches
// (Tool web_fetch) that reach only Hosts, each by its exact name (no
// subdomains).
type Always struct {
	// Tool is the tool allowed: run_shell_command, web_fetch, or for an
	// MCP server the tool's own name there.
	Tool string
	// Prefixes are the command prefixes of a shell answer, Dir the folder
	// it holds in ("": anywhere).
	Prefixes []string
	Dir      string
	// Server is the MCP server of an MCP answer.
	Server string
	// Hosts are the web hosts of a fetch answer.
	Hosts []string
}

// AlwaysFor returns what an "always allow" answer to ap would allow, a
// shell answer holding in the workspace folder dir; false when none is
// offered: a command line no prefix rule could allow (see [Prefixes]), a
// host no rule can name (an IPv6 address), the loop question.
func AlwaysFor(ap agent.Approval, dir string) (Always, bool) {
	var a Always
	switch {
	case ap.Kind != "":
		return Always{}, false
	case ap.Server != "":
		a = Always{Tool: ap.ServerTool, Server: ap.Server}
	case ap.Command != "":
		a = Always{Tool: ap.Tool, Prefixes: Prefixes(ap.Command), Dir: dir}
		if len(a.Prefixes) == 0 {
			return Always{}, false
		}
	case len(ap.Hosts) > 0:
		a = Always{Tool: ap.Tool, Hosts: slices.Clone(ap.Hosts)}
	default:
		return Always{}, false
	}
	if _, err := a.rule(); err != nil {
		return Always{}, false
	}
	return a, true
}

// Text says what a allows, for the approval event's Rule: "go test, go
// vet", "fs tool read_file", "go.dev, pkg.go.dev", with the characters
// that could hide what it says escaped (names come from MCP servers and
// models).
func (a Always) Text() string {
	var s string
	switch {
	case a.Server != "":
		s = a.Server + " tool " + a.Tool
	case len(a.Hosts) > 0:
		s = strings.Join(a.Hosts, ", ")
	default:
		s = strings.Join(a.Prefixes, ", ")
	}
	s, _ = edits.VisibleLine(s)
	return s
}

// Quoted says what a allows, for a question's answers: each name in
// backticks, with the characters that could hide what it says escaped
// ("`fs` tool `read_file`").
func (a Always) Quoted() string {
	switch {
	case a.Server != "":
		return quoteVisible([]string{a.Server}) + " tool " + quoteVisible([]string{a.Tool})
	case len(a.Hosts) > 0:
		return quoteVisible(a.Hosts)
	}
	return quoteVisible(a.Prefixes)
}

// rule is the session rule a stands for. Names are matched literally: a
// server, tool or host name that holds pattern characters (*, ?, [) is
// escaped, so that it allows nothing but itself.
func (a Always) rule() (*Rule, error) {
	r := &Rule{Decision: agent.VerdictAllow, Source: SourceSession}
	switch {
	case a.Server != "":
		if a.Tool == "" {
			return nil, errors.New("no MCP tool to allow")
		}
		r.MCPName, r.ToolName = literal(a.Server), []string{literal(a.Tool)}
	case len(a.Hosts) > 0:
		r.ToolName = []string{literal(a.Tool)}
		for _, h := range a.Hosts {
			r.Host = append(r.Host, literal(strings.ToLower(h)))
		}
	case len(a.Prefixes) > 0:
		r.ToolName, r.CommandPrefix, r.Dir = []string{ShellTool}, slices.Clone(a.Prefixes), a.Dir
	default:
		return nil, errors.New("nothing to allow")
	}
	if slices.Contains(r.ToolName, "") {
		return nil, errors.New("no tool to allow")
	}
	if err := r.compile(); err != nil {
		return nil, err
	}
	return r, nil
}

// AllowAlways adds the session rule that allows what a says: the "always
// allow" answer to an approval. It returns the rule, which [Engine.Save]
// may move into a policy file.
func (e *Engine) AllowAlways(a Always) (Rule, error) {
	r, err := a.rule()
	if err != nil {
		return Rule{}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.nextID++
	r.ID = fmt.Sprintf("session-%d", e.nextID)
	r.Name = "always allow " + a.Quoted()
	e.session = append(e.session, r)
	return *r, nil
}

// literal escapes the pattern characters of path.Match in name.
func literal(name string) string {
	if !strings.ContainsAny(name, `*?[\`) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func quoteVisible(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i], _ = edits.VisibleLine(s)
	}
	return quoteList(q)
}
