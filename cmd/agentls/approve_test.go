//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp/mcptest"
	"github.com/agentls/agentls/agent/policy"
)

func touchTurns() []geminitest.Turn {
	touch := func(name string) geminitest.Turn {
		return geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "touch " + name, "description": "make " + name}))
	}
	return []geminitest.Turn{touch("a.txt"), touch("b.txt"),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))}
}

// agentls run asks before each shell command (y, n, a for always, d for
// details, q to stop); --yes runs none without a policy rule.
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
		code    int
	}{
		{name: "yes, then no", stdin: "y\nn\n", made: []bool{true, false}, asked: 2},
		{name: "always", stdin: "a\n", made: []bool{true, true}, asked: 1},
		{name: "details, then yes", stdin: "d\ny\nn\n", made: []bool{true, false}, asked: 3, says: "  command: touch a.txt"},
		{name: "help, then yes", stdin: "what\ny\nn\n", made: []bool{true, false}, asked: 3, says: "y = allow it once, n = deny it, a = always allow `touch` for this session"},
		{name: "quit", stdin: "q\n", made: []bool{false, false}, asked: 1, code: 3, says: "✗ Cancelled"},
		{name: "no answer", stdin: "", made: []bool{false, false}, asked: 2},
		{name: "--yes runs no command", args: []string{"--yes"}, made: []bool{false, false},
			says: "✗ Denied: run `touch a.txt` in "},
		{name: "--yes runs what a rule allows", args: []string{"--yes"}, made: []bool{true, true}, ruleFor: "touch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, _ := filepath.EvalSymlinks(t.TempDir())
			srv := geminitest.NewServer(t, touchTurns()...)
			env := fakeEnv(srv)
			if tt.ruleFor != "" {
				// A workspace's rules count once the user trusts the folder.
				config := t.TempDir()
				env["XDG_CONFIG_HOME"] = config
				os.MkdirAll(filepath.Join(dir, ".agentls"), 0o755)
				os.WriteFile(filepath.Join(dir, ".agentls", "policy.toml"), []byte("[[rule]]\ncommandPrefix = \""+tt.ruleFor+"\"\ndecision = \"allow\"\n"), 0o644)
				eng := policy.New(filepath.Join(config, "agentls", "policy.toml"))
				st, _ := eng.TrustState(dir)
				if err := eng.Trust(dir, st.Hash); err != nil {
					t.Fatal(err)
				}
			}
			args := append([]string{"run", "--workspace", dir}, tt.args...)
			code, out, errOut := agentls(t, env, tt.stdin, append(args, "make files")...)
			if code != tt.code {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, tt.code, out, errOut)
			}
			for i, name := range []string{"a.txt", "b.txt"} {
				if _, err := os.Stat(filepath.Join(dir, name)); (err == nil) != tt.made[i] {
					t.Errorf("%s made: %v, want %v\n%s", name, err == nil, tt.made[i], out)
				}
			}
			if got := strings.Count(out, "[y/n/a/d/q] "); got != tt.asked {
				t.Errorf("asked %d times, want %d:\n%s", got, tt.asked, out)
			}
			if tt.asked > 0 && !strings.Contains(out, "Run `touch a.txt` in "+dir+"? (make a.txt) [y/n/a/d/q] ") {
				t.Errorf("question:\n%s", out)
			}
			if !strings.Contains(out, tt.says) {
				t.Errorf("output lacks %q:\n%s", tt.says, out)
			}
		})
	}
}

// a on an MCP call allows that server's tool for the rest of the run: the
// second call is not asked about; d says what a would allow.
func TestRunAlwaysAllowsMCPTool(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	notes := mcptest.NewServer(t)
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("mcp_notes_note", map[string]any{"text": "one"})),
		geminitest.Reply(geminitest.Call("mcp_notes_note", map[string]any{"text": "two"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	env := fakeEnv(srv)
	config := t.TempDir()
	env["XDG_CONFIG_HOME"] = config
	write(t, filepath.Join(config, "agentls", "settings.json"), `{"mcpServers": {"notes": {"httpUrl": "`+notes.URL+`"}}}`)
	code, out, errOut := agentls(t, env, "d\na\n", "run", "--workspace", dir, "keep notes")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	q := `Allow MCP server "notes" to run its tool "note" with {"text":"one"}? [y/n/a/d/q] `
	if got := strings.Count(out, "[y/n/a/d/q] "); got != 2 || strings.Count(out, q) != 2 {
		t.Errorf("asked %d times, want the first call twice (d, then a):\n%s", got, out)
	}
	if want := "  always:  allows `notes` tool `note` (of that server only) for this session"; !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if got := notes.Notes(); strings.Join(got, ",") != "one,two" {
		t.Errorf("notes %q, want one and two", got)
	}
}

// a on a web fetch allows its host for the rest of the run, not others.
func TestRunAlwaysAllowsHost(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.EvalSymlinks(t.TempDir())
	page, hits := notesServer(t)
	other := strings.Replace(page.URL, "127.0.0.1", "localhost", 1)
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("web_fetch", map[string]any{"url": page.URL + "/a"})),
		geminitest.Reply(geminitest.Call("web_fetch", map[string]any{"url": page.URL + "/b"})),
		geminitest.Reply(geminitest.Call("web_fetch", map[string]any{"url": other + "/c"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	code, out, errOut := agentls(t, fakeEnv(srv), "a\nn\n", "run", "--workspace", dir, "--web-private-network", "read")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if got := strings.Count(out, "[y/n/a/d/q] "); got != 2 || !strings.Contains(out, "Fetch "+other+"/c") {
		t.Errorf("asked %d times, want the first fetch and the other host's:\n%s", got, out)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
}
