package policy

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/agentls/agentls/agent"
)

// UserFile is the user's policy file, os.UserConfigDir()/agentls/policy.toml;
// "" when the system names no config directory.
func UserFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "agentls", "policy.toml")
}

// WorkspaceFile is the policy file of a workspace folder,
// <root>/.agentls/policy.toml.
func WorkspaceFile(root string) string {
	return filepath.Join(root, ".agentls", "policy.toml")
}

// ruleHeader finds the [[rule]] tables of a policy file, to name rules by
// their line.
var ruleHeader = regexp.MustCompile(`(?m)^[ \t]*\[\[[ \t]*rule[ \t]*\]\]`)

// ParseFile reads the rules of a policy file's text. name is the file, for
// rule IDs ("<name>:<line>") and errors, which name the file and the line.
// Unknown keys are errors, never silently ignored.
func ParseFile(name, text string, src Source) ([]*Rule, error) {
	var doc map[string]any
	if _, err := toml.Decode(text, &doc); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var errs []error
	for k := range doc {
		if k != "rule" {
			errs = append(errs, fmt.Errorf("%s: unknown key %q (policy files hold [[rule]] tables)", name, k))
		}
	}
	tables, ok := doc["rule"].([]map[string]any)
	if !ok && doc["rule"] != nil {
		return nil, errors.Join(append(errs, fmt.Errorf("%s: rule must be an array of tables ([[rule]])", name))...)
	}
	lines := headerLines(text)
	rules := []*Rule{} // non-nil: the file is TOML
	for i, t := range tables {
		where := name
		id := fmt.Sprintf("%s#%d", name, i+1)
		if len(lines) == len(tables) {
			where = fmt.Sprintf("%s:%d", name, lines[i])
			id = where
		}
		r, err := ruleFromTable(t)
		if err == nil {
			err = r.compile()
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: rule %d: %w", where, i+1, err))
			continue
		}
		r.ID, r.Source = id, src
		rules = append(rules, r)
	}
	return rules, errors.Join(errs...)
}

func headerLines(text string) []int {
	var lines []int
	for _, loc := range ruleHeader.FindAllStringIndex(text, -1) {
		lines = append(lines, strings.Count(text[:loc[0]], "\n")+1)
	}
	return lines
}

// ruleFromTable decodes one [[rule]] table, reporting unknown keys and
// values of the wrong type.
func ruleFromTable(t map[string]any) (*Rule, error) {
	r := &Rule{}
	var errs []error
	str := func(k string, v any) string {
		s, ok := v.(string)
		if !ok {
			errs = append(errs, fmt.Errorf("%s must be a string", k))
		}
		return s
	}
	strs := func(k string, v any) []string {
		switch x := v.(type) {
		case string:
			return []string{x}
		case []any:
			out := make([]string, 0, len(x))
			for _, e := range x {
				s, ok := e.(string)
				if !ok {
					errs = append(errs, fmt.Errorf("%s must hold strings", k))
					return nil
				}
				out = append(out, s)
			}
			return out
		}
		errs = append(errs, fmt.Errorf("%s must be a string or an array of strings", k))
		return nil
	}
	keys := make([]string, 0, len(t))
	for k := range t {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := t[k]
		switch k {
		case "name":
			r.Name = str(k, v)
		case "toolName":
			r.ToolName = strs(k, v)
		case "subagent":
			r.Subagent = str(k, v)
		case "mcpName":
			r.MCPName = str(k, v)
		case "argsPattern":
			r.ArgsPattern = str(k, v)
		case "commandPrefix":
			r.CommandPrefix = strs(k, v)
		case "commandRegex":
			r.CommandRegex = str(k, v)
		case "pathPattern":
			r.PathPattern = strs(k, v)
		case "host":
			r.Host = strs(k, v)
		case "allowRedirection":
			b, ok := v.(bool)
			if !ok {
				errs = append(errs, fmt.Errorf("%s must be true or false", k))
			}
			r.AllowRedirection = b
		case "decision":
			d := str(k, v)
			if d == "ask_user" {
				d = "ask"
			}
			r.Decision = agent.Verdict(d)
		case "priority":
			n, ok := v.(int64)
			if !ok {
				errs = append(errs, fmt.Errorf("%s must be a whole number", k))
			}
			r.Priority = int(n)
		case "denyMessage":
			r.DenyMessage = str(k, v)
		case "modes":
			for _, m := range strs(k, v) {
				r.Modes = append(r.Modes, Mode(m))
			}
		default:
			errs = append(errs, fmt.Errorf("unknown key %q", k))
		}
	}
	if _, ok := t["decision"]; !ok {
		errs = append(errs, errors.New("decision is missing (allow, deny or ask_user)"))
	}
	if len(errs) == 0 {
		return r, nil
	}
	msgs := make([]string, len(errs))
	for i, err := range errs {
		msgs[i] = err.Error()
	}
	return r, errors.New(strings.Join(msgs, "; "))
}

// appendRule adds r to the policy file at path as a [[rule]] table, creating
// the file and its folder if needed.
func appendRule(path string, r *Rule) error {
	var b bytes.Buffer
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	if len(old) > 0 && !bytes.HasSuffix(old, []byte("\n")) {
		b.WriteString("\n")
	}
	if len(old) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("[[rule]]\n")
	field := func(k string, v any) {
		j, _ := json.Marshal(v) // a JSON string or array of strings is TOML too
		fmt.Fprintf(&b, "%s = %s\n", k, j)
	}
	if r.Name != "" {
		field("name", r.Name)
	}
	if len(r.ToolName) > 0 {
		field("toolName", oneOrMany(r.ToolName))
	}
	if r.Subagent != "" {
		field("subagent", r.Subagent)
	}
	if r.MCPName != "" {
		field("mcpName", r.MCPName)
	}
	if r.ArgsPattern != "" {
		field("argsPattern", r.ArgsPattern)
	}
	if len(r.CommandPrefix) > 0 {
		field("commandPrefix", oneOrMany(r.CommandPrefix))
	}
	if r.CommandRegex != "" {
		field("commandRegex", r.CommandRegex)
	}
	if r.AllowRedirection {
		b.WriteString("allowRedirection = true\n")
	}
	if len(r.PathPattern) > 0 {
		field("pathPattern", oneOrMany(r.PathPattern))
	}
	if len(r.Host) > 0 {
		field("host", oneOrMany(r.Host))
	}
	field("decision", string(r.Decision))
	if r.Priority != 0 {
		fmt.Fprintf(&b, "priority = %d\n", r.Priority)
	}
	if len(r.Modes) > 0 {
		field("modes", r.Modes)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(b.Bytes()); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func oneOrMany(s []string) any {
	if len(s) == 1 {
		return s[0]
	}
	return slices.Clone(s)
}
