package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/agent"
)

// ShellTool is the tool whose calls commandPrefix and commandRegex match.
const ShellTool = "run_shell_command"

// A Source tells where a rule comes from. Sources rank, lowest first:
// default, workspace, user; a rule of a higher source wins whatever its
// priority. Session rules stand apart: they only allow what the others would
// ask about.
type Source string

// Sources.
const (
	SourceDefault   Source = "default"
	SourceWorkspace Source = "workspace" // .agentls/policy.toml of a workspace folder
	SourceUser      Source = "user"      // the user's config directory
	SourceSession   Source = "session"   // "always allow" answers of this session
)

var tiers = map[Source]int{SourceDefault: 1, SourceWorkspace: 2, SourceUser: 3, SourceSession: 0}

// A Rule matches tool calls and decides them. Every condition that is set
// must hold. The fields follow Gemini CLI's policy files.
type Rule struct {
	// Name names the rule in denials and listings; "" uses its ID.
	Name string `json:"name,omitempty"`
	// ToolName holds tool names, with * wildcards; empty: any tool (or
	// run_shell_command, when a command condition is set).
	ToolName []string `json:"toolName,omitempty"`
	// Subagent is the agent whose calls match ("codebase_investigator").
	Subagent string `json:"subagent,omitempty"`
	// MCPName makes the rule about the tools of an MCP server: the
	// server's name, with * wildcards ("*": every server). ToolName then
	// matches the tool's name on that server or its mcp_… name.
	MCPName string `json:"mcpName,omitempty"`
	// ArgsPattern is a regular expression matched against the call's
	// arguments as JSON with sorted keys.
	ArgsPattern string `json:"argsPattern,omitempty"`
	// CommandPrefix and CommandRegex match shell commands. A line of several
	// commands (a && b, a | b) is allowed only if each of them matches, and
	// never when it substitutes commands or, without AllowRedirection,
	// redirects to a file; it is denied or asked about if one of them
	// matches. A regular expression matches a command from its start.
	CommandPrefix    []string `json:"commandPrefix,omitempty"`
	CommandRegex     string   `json:"commandRegex,omitempty"`
	AllowRedirection bool     `json:"allowRedirection,omitempty"`
	// PathPattern makes the rule about secret-looking files (.env, keys):
	// doublestar patterns of workspace-relative paths; a pattern without "/"
	// matches the file name. Such a rule decides only whether those files may
	// be used at all (see Policy.AllowsPath).
	PathPattern []string `json:"pathPattern,omitempty"`
	// Host holds host names of web fetches (web_fetch), with * wildcards
	// ("*.go.dev"): an allow rule matches a call only when every host it
	// would reach matches, a deny or ask rule when one does.
	Host []string `json:"host,omitempty"`
	// Dir limits the rule to shell commands run in this folder or below it.
	// Rules of a workspace's policy file have the workspace folder.
	Dir string `json:"dir,omitempty"`

	Decision    agent.Verdict `json:"decision"`
	Priority    int           `json:"priority,omitempty"` // 0 to 999
	DenyMessage string        `json:"denyMessage,omitempty"`
	// Modes are the approval modes the rule applies in; empty: all.
	Modes []Mode `json:"modes,omitempty"`

	// ID identifies the rule: "<file>:<line>" for a file's rule, "session-N"
	// for a session rule, "default:…" for a default.
	ID     string `json:"id"`
	Source Source `json:"source"`

	argsRe *regexp.Regexp
	cmdRe  *regexp.Regexp
	// kinds, set only on the defaults, limits the rule to tools that
	// declare one of these kinds.
	kinds []agent.Kind
}

// Label is the rule's name, or its ID when it has none.
func (r *Rule) Label() string {
	if r.Name != "" {
		return r.Name
	}
	return r.ID
}

// compile checks the rule and prepares its patterns.
func (r *Rule) compile() error {
	switch r.Decision {
	case agent.VerdictAllow, agent.VerdictDeny, agent.VerdictAsk:
	default:
		return fmt.Errorf("decision %q is not one of allow, deny, ask_user", r.Decision)
	}
	if r.Priority < 0 || r.Priority > 999 {
		return fmt.Errorf("priority %d is not between 0 and 999", r.Priority)
	}
	for _, m := range r.Modes {
		if _, err := ParseMode(string(m)); err != nil || m == "" {
			return fmt.Errorf("mode %q is not one of plan, default, autoEdit", m)
		}
	}
	for _, t := range r.ToolName {
		if _, err := path.Match(t, ""); err != nil || t == "" {
			return fmt.Errorf("toolName %q is not a name or a pattern", t)
		}
	}
	if _, err := path.Match(r.MCPName, ""); err != nil {
		return fmt.Errorf("mcpName %q is not a name or a pattern", r.MCPName)
	}
	if r.MCPName != "" && (r.commandRule() || r.CommandRegex != "" || r.PathPattern != nil) {
		return fmt.Errorf("mcpName cannot be combined with commandPrefix, commandRegex or pathPattern")
	}
	for _, p := range r.CommandPrefix {
		if strings.TrimSpace(p) == "" {
			return fmt.Errorf("commandPrefix must not be empty")
		}
	}
	for _, p := range r.PathPattern {
		if !doublestar.ValidatePattern(p) || p == "" {
			return fmt.Errorf("pathPattern %q is not a valid pattern", p)
		}
	}
	if r.PathPattern != nil && (r.CommandPrefix != nil || r.CommandRegex != "" || r.ArgsPattern != "") {
		return fmt.Errorf("pathPattern cannot be combined with commandPrefix, commandRegex or argsPattern")
	}
	for _, h := range r.Host {
		if _, err := path.Match(h, ""); err != nil || h == "" || strings.ContainsAny(h, "/:") {
			return fmt.Errorf("host %q is not a host name or a pattern", h)
		}
	}
	if r.Host != nil && (r.commandRule() || r.CommandRegex != "" || r.PathPattern != nil) {
		return fmt.Errorf("host cannot be combined with commandPrefix, commandRegex or pathPattern")
	}
	if r.CommandPrefix != nil && r.CommandRegex != "" {
		return fmt.Errorf("commandPrefix and commandRegex cannot be used in the same rule")
	}
	var err error
	if r.ArgsPattern != "" {
		if r.argsRe, err = regexp.Compile(r.ArgsPattern); err != nil {
			return fmt.Errorf("argsPattern: %w", err)
		}
	}
	if r.CommandRegex != "" {
		if _, err := regexp.Compile(r.CommandRegex); err != nil {
			return fmt.Errorf("commandRegex: %w", err)
		}
		r.cmdRe = regexp.MustCompile(`^(?:` + r.CommandRegex + `)`)
	}
	if r.Dir != "" {
		r.Dir = filepath.Clean(r.Dir)
	}
	return nil
}

// rank orders rules: a higher source first, then a higher priority.
func (r *Rule) rank() int { return tiers[r.Source]*1000 + r.Priority }

// outranks reports whether r wins over other; of two rules of one rank the
// stricter wins (deny, then ask, then allow).
func (r *Rule) outranks(other *Rule) bool {
	if other == nil || r.rank() != other.rank() {
		return other == nil || r.rank() > other.rank()
	}
	return strictness[r.Decision] > strictness[other.Decision]
}

var strictness = map[agent.Verdict]int{agent.VerdictAllow: 1, agent.VerdictAsk: 2, agent.VerdictDeny: 3}

// commandRule reports whether r has a command condition.
func (r *Rule) commandRule() bool { return r.CommandPrefix != nil || r.cmdRe != nil }

// matches reports whether r applies to call c in mode m. args returns
// c.Args as stable JSON and cmd the parsed command, each computed once per
// call and only if a rule needs it.
func (r *Rule) matches(c *agent.PolicyCall, m Mode, args func() string, cmd func() Command) bool {
	if len(r.Modes) > 0 && !slices.Contains(r.Modes, m) {
		return false
	}
	if r.MCPName != "" {
		if c.Approval == nil || c.Approval.Server == "" {
			return false
		}
		if ok, _ := path.Match(r.MCPName, c.Approval.Server); !ok {
			return false
		}
	}
	if len(r.ToolName) > 0 {
		if !slices.ContainsFunc(r.ToolName, func(t string) bool { return r.toolMatches(t, c) }) {
			return false
		}
	} else if r.commandRule() && c.Tool != ShellTool {
		return false
	}
	if r.kinds != nil && !slices.Contains(r.kinds, c.Kind) {
		return false
	}
	if r.Subagent != "" && r.Subagent != c.Agent {
		return false
	}
	if r.Dir != "" && c.Approval != nil && c.Approval.Dir != "" && !within(filepath.Clean(c.Approval.Dir), r.Dir) {
		return false
	}
	if r.argsRe != nil && !r.argsRe.MatchString(args()) {
		return false
	}
	if r.Host != nil && !r.hostsMatch(c) {
		return false
	}
	if !r.commandRule() {
		return true
	}
	if c.Approval == nil || strings.TrimSpace(c.Approval.Command) == "" {
		return false
	}
	line := cmd()
	if r.Decision == agent.VerdictAllow {
		// Trusted only when the rule sees every command the line runs.
		if line.Complex != "" || line.Redirection && !r.AllowRedirection || len(line.Calls) == 0 {
			return false
		}
		return !slices.ContainsFunc(line.Calls, func(call Call) bool { return !r.commandMatches(call) })
	}
	// Deny and ask rules match what would run, wherever it is in the line.
	return slices.ContainsFunc(line.Calls, r.commandMatches) || slices.ContainsFunc(line.Runs, r.commandMatches)
}

// hostsMatch reports whether the web hosts of c match r's: all of them for
// an allow rule, one for the others.
func (r *Rule) hostsMatch(c *agent.PolicyCall) bool {
	if c.Approval == nil || len(c.Approval.Hosts) == 0 {
		return false
	}
	match := func(h string) bool {
		return slices.ContainsFunc(r.Host, func(p string) bool {
			ok, _ := path.Match(strings.ToLower(p), strings.ToLower(h))
			return ok
		})
	}
	if r.Decision == agent.VerdictAllow {
		return !slices.ContainsFunc(c.Approval.Hosts, func(h string) bool { return !match(h) })
	}
	return slices.ContainsFunc(c.Approval.Hosts, match)
}

// toolMatches reports whether the toolName pattern t matches c: its tool,
// or, in a rule about an MCP server, the tool's name on the server.
func (r *Rule) toolMatches(t string, c *agent.PolicyCall) bool {
	if ok, _ := path.Match(t, c.Tool); ok {
		return true
	}
	if r.MCPName == "" || c.Approval == nil || c.Approval.ServerTool == "" {
		return false
	}
	ok, _ := path.Match(t, c.Approval.ServerTool)
	return ok
}

// commandMatches reports whether a simple command matches r's command
// condition: a prefix of its words (or of its key, see [key]), or r's
// regular expression from the start of its text.
func (r *Rule) commandMatches(call Call) bool {
	if r.cmdRe != nil {
		return r.cmdRe.MatchString(call.String())
	}
	return slices.ContainsFunc(r.CommandPrefix, func(p string) bool { return prefixMatches(call, p) })
}

// matchesPath reports whether the path rule r applies to tool using the
// workspace-relative path rel in mode m.
func (r *Rule) matchesPath(tool, rel string, m Mode) bool {
	if r.PathPattern == nil || len(r.Modes) > 0 && !slices.Contains(r.Modes, m) {
		return false
	}
	if len(r.ToolName) > 0 && !slices.ContainsFunc(r.ToolName, func(t string) bool { ok, _ := path.Match(t, tool); return ok }) {
		return false
	}
	rel = filepath.ToSlash(rel)
	return slices.ContainsFunc(r.PathPattern, func(p string) bool {
		if !strings.Contains(p, "/") {
			ok, _ := doublestar.Match(p, path.Base(rel))
			return ok
		}
		ok, _ := doublestar.Match(p, rel)
		return ok
	})
}

// within reports whether the clean path is dir or lies below it.
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	if !strings.HasSuffix(dir, string(filepath.Separator)) {
		dir += string(filepath.Separator)
	}
	return strings.HasPrefix(p, dir)
}

// stableJSON is a call's arguments as JSON with sorted keys and no HTML
// escaping, the text argsPattern is matched against.
func stableJSON(raw json.RawMessage) string {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return string(raw)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return string(raw)
	}
	return strings.TrimSuffix(b.String(), "\n")
}
