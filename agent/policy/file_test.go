package policy

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentls/agentls/agent"
)

func TestParseFileErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, text string
		errs       []string // each error names the file and the line
		valid      int      // rules that load anyway
	}{
		{name: "not TOML", text: "[[rule]]\ndecision = allow\n", errs: []string{"p.toml:2: "}},
		{name: "unclosed table", text: "[[rule]\n", errs: []string{"p.toml:2: expected end of table array name"}},
		{name: "unknown top-level key", text: "mode = \"plan\"\n", errs: []string{`p.toml: unknown key "mode"`}},
		{name: "rule is no table array", text: "rule = 3\n", errs: []string{"p.toml: rule must be an array of tables"}},
		{name: "bad rules among good ones", text: `[[rule]]
commandPrefix = "ls"
decision = "allow"

[[rule]]
commandPrefix = "rm"
decision = "maybe"

[[rule]]
toolName = "read_file"
comandPrefix = "x"
decision = "deny"

[[rule]]
commandRegex = "git ("
decision = "deny"

[[rule]]
toolName = "x"
priority = 1000
decision = "deny"

[[rule]]
toolName = "x"

[[rule]]
commandPrefix = "a"
commandRegex = "b"
decision = "deny"

[[rule]]
toolName = 3
priority = "high"
modes = ["yolo"]
decision = "allow"

[[rule]]
toolName = ["read_file", "glob"]
modes = ["plan", "autoEdit"]
decision = "ask_user"
`, errs: []string{
			`p.toml:5: rule 2: decision "maybe" is not one of allow, deny, ask_user`,
			`p.toml:9: rule 3: unknown key "comandPrefix"`,
			"p.toml:14: rule 4: commandRegex: error parsing regexp",
			"p.toml:18: rule 5: priority 1000 is not between 0 and 999",
			"p.toml:23: rule 6: decision is missing",
			"p.toml:26: rule 7: commandPrefix and commandRegex cannot be used in the same rule",
			`p.toml:31: rule 8: priority must be a whole number; toolName must be a string or an array of strings`,
		}, valid: 2},
		{name: "host rules", text: `[[rule]]
host = "https://go.dev/doc"
decision = "allow"

[[rule]]
host = "go.dev"
commandPrefix = "curl"
decision = "allow"

[[rule]]
host = ["go.dev", "*.golang.org"]
decision = "allow"
`, errs: []string{
			`p.toml:1: rule 1: host "https://go.dev/doc" is not a host name or a pattern`,
			"p.toml:5: rule 2: host cannot be combined with commandPrefix, commandRegex or pathPattern",
		}, valid: 1},
	}
	for _, tt := range tests {
		rules, err := ParseFile("p.toml", tt.text, SourceUser)
		if len(rules) != tt.valid {
			t.Errorf("%s: %d rules, want %d", tt.name, len(rules), tt.valid)
		}
		if err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		for _, want := range tt.errs {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error does not say %q:\n%v", tt.name, want, err)
			}
		}
	}
}

func TestParseFile(t *testing.T) {
	t.Parallel()
	rules, err := ParseFile("p.toml", `# comment
[[rule]]
toolName = ["read_file", "glob"]
modes = ["plan", "autoEdit"]
decision = "ask_user"
priority = 3
denyMessage = "x"
name = "n"
subagent = "codebase_investigator"
argsPattern = "a"
`, SourceWorkspace)
	if err != nil {
		t.Fatal(err)
	}
	want := Rule{Name: "n", ToolName: []string{"read_file", "glob"}, Subagent: "codebase_investigator", ArgsPattern: "a",
		Decision: agent.VerdictAsk, Priority: 3, DenyMessage: "x", Modes: []Mode{ModePlan, ModeAutoEdit},
		ID: "p.toml:2", Source: SourceWorkspace}
	if diff := cmp.Diff([]Rule{want}, []Rule{*rules[0]}, cmpopts.IgnoreUnexported(Rule{})); diff != "" {
		t.Errorf("rule (-want +got):\n%s", diff)
	}
}

// Load reads a file again when it changes; a file broken by an edit keeps
// its last good rules, and says what is wrong with the file and line.
func TestLoadAgain(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "policy.toml")
	e := New(file)
	ls := shell("ls", dir)
	check := func(want agent.Verdict) {
		t.Helper()
		if got := e.WithMode(ModeDefault).Check(ls).Verdict; got != want {
			t.Errorf("ls: %s, want %s", got, want)
		}
	}
	if err := e.Load(nil); err != nil {
		t.Fatal(err)
	}
	check(agent.VerdictAsk)
	write(t, file, "[[rule]]\ncommandPrefix = \"ls\"\ndecision = \"allow\"\n")
	if err := e.Load(nil); err != nil {
		t.Fatal(err)
	}
	check(agent.VerdictAllow)
	write(t, file, "[[rule]]\ncommandPrefix = \"ls\"\ndecision = \"allow\n")
	future := time.Now().Add(time.Hour) // a new modification time even on coarse clocks
	os.Chtimes(file, future, future)
	err := e.Load(nil)
	if err == nil || !strings.HasPrefix(err.Error(), file+":3: ") {
		t.Errorf("error = %v, want one naming %s:3", err, file)
	}
	check(agent.VerdictAllow)
	os.Remove(file)
	if err := e.Load(nil); err != nil {
		t.Fatal(err)
	}
	check(agent.VerdictAsk)
}

func TestBadMode(t *testing.T) {
	t.Parallel()
	_, err := ParseFile("p.toml", "[[rule]]\ntoolName = \"x\"\nmodes = [\"yolo\"]\ndecision = \"allow\"\n", SourceUser)
	if err == nil || err.Error() != `p.toml:1: rule 1: mode "yolo" is not one of plan, default, autoEdit` {
		t.Errorf("error = %v", err)
	}
}
