//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func touchTurns() []geminitest.Turn {
	touch := func(name string) geminitest.Turn {
		return geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "touch " + name, "description": "make " + name}))
	}
	return []geminitest.Turn{touch("a.txt"), touch("b.txt"),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))}
}

// agentls run asks before each shell command; --yes runs none without a
// policy rule.
func TestRunApprovesCommands(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    []string
		stdin   string
		made    []bool // a.txt, b.txt
		asked   int
		says    string
		ruleFor string // a workspace policy rule allowing this prefix
	}{
		{name: "yes, then no", stdin: "y\nn\n", made: []bool{true, false}, asked: 2},
		{name: "always", stdin: "a\n", made: []bool{true, true}, asked: 1},
		{name: "no answer", stdin: "", made: []bool{false, false}, asked: 2},
		{name: "--yes runs no command", args: []string{"--yes"}, made: []bool{false, false},
			says: "✗ Denied: run `touch a.txt` in "},
		{name: "--yes runs what a rule allows", args: []string{"--yes"}, made: []bool{true, true}, ruleFor: "touch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			if tt.ruleFor != "" {
				os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
				os.WriteFile(filepath.Join(dir, ".agentls", "policy.toml"), []byte("[[rule]]\ncommandPrefix = \""+tt.ruleFor+"\"\ndecision = \"allow\"\n"), 0o644)
			}
			srv := geminitest.NewServer(t, touchTurns()...)
			args := append([]string{"run", "--workspace", dir}, tt.args...)
			code, out, errOut := agentls(t, fakeEnv(srv), tt.stdin, append(args, "make files")...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
			}
			for i, name := range []string{"a.txt", "b.txt"} {
				if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != tt.made[i] {
					t.Errorf("%s made: %v, want %v\n%s", name, err == nil, tt.made[i], out)
				}
			}
			if got := strings.Count(out, "[y = once, a = always allow touch, n = no] "); got != tt.asked {
				t.Errorf("asked %d times, want %d:\n%s", got, tt.asked, out)
			}
			if tt.asked > 0 && !strings.Contains(out, "Run `touch a.txt` in "+dir+"? (make a.txt) [y = once") {
				t.Errorf("question:\n%s", out)
			}
			if !strings.Contains(out, tt.says) {
				t.Errorf("output lacks %q:\n%s", tt.says, out)
			}
		})
	}
}
