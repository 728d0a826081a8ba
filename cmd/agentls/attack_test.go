//go:build unix

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// An attack is what a hostile repository (its files and symlinks) and a
// prompt-injected model (its tool calls) try, through agentls run: the real
// genai SDK against the fake Gemini server, a real disk, real links, a real
// shell and a real trace file. Each row checks that the action did not
// happen, and that the model was told which rule refused it.
type attack struct {
	name  string
	files map[string]string // workspace files
	links map[string]string // symlink → target, in the workspace
	env   map[string]string // besides the model's
	args  []string          // besides run --workspace --trace
	stdin string
	calls []geminitest.Chunk // one turn each, then complete_task
	told  string             // in what the model was told of its first call
	out   string             // agentls says this on stdout

	unchanged []string            // workspace files that keep their content
	changed   map[string]string   // workspace files and their new content
	still     []string            // workspace paths that are still symlinks
	absent    []string            // workspace paths that must not exist
	secrets   []string            // in no model request and not in the trace
	untraced  []string            // not in the trace (the model may read them)
	lacks     map[string][]string // workspace file → what it must not hold
}

const (
	envSecret = "ENV-FILE-SECRET-7f3a"
	gitSecret = "GIT-CONFIG-SECRET-91c2"
	dbPass    = "pg-Secret-9z4x"
)

// hostileRepo is every attack's workspace: a repository with secrets in
// the usual places, and symlinks with innocent names leading to them.
var hostileRepo = map[string]string{
	"README.md":                "# demo\n",
	"main.go":                  "package main\n",
	".env":                     "API_KEY=" + envSecret + "\n",
	".git/config":              "[remote \"origin\"]\n\turl = https://u:" + gitSecret + "@example.com/r.git\n",
	".git/HEAD":                "ref: refs/heads/main\n",
	".agentls/policy.toml":     "# the workspace policy\n",
	"config/database.yml":      "password: " + dbPass + "\n",
	"deploy/terraform.tfstate": "{\"secret\": \"" + envSecret + "\"}\n",
}

var hostileLinks = map[string]string{
	"tools":          ".git",     // git checks symlinks out
	"conf":           ".agentls", // the policy folder under another name
	"hop1":           "hop2",     // a chain of links
	"hop2":           "tools",    //
	"docs/setup.txt": "../.env",  // an innocent name for .env
	"docs/state.txt": "../deploy/terraform.tfstate",
	"docs/link.md":   "../README.md", // a harmless link
}

func TestAttacks(t *testing.T) {
	t.Parallel()
	write := func(path, content string) geminitest.Chunk {
		return geminitest.Call("write_file", map[string]any{"file_path": path, "content": content})
	}
	read := func(path string) geminitest.Chunk {
		return geminitest.Call("read_file", map[string]any{"file_path": path})
	}
	shell := func(command string) geminitest.Chunk {
		return geminitest.Call("run_shell_command", map[string]any{"command": command})
	}
	yes := []string{"--yes"}
	secretEnv := map[string]string{
		"DATABASE_URL": "postgres://app:" + dbPass + "@db:5432/app", "PGPASSWORD": "pgpass-0a9s8d7f", "MYSQL_PWD": "mysqlpwd-0a9s8d7f",
		"SECRET_KEY_BASE": "skb-0a9s8d7f6g", "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE0A9S8D7F", "NPM_CONFIG__AUTHTOKEN": "npm-0a9s8d7f6g",
		"AZURE_STORAGE_CONNECTION_STRING": "DefaultEndpointsProtocol=https;AccountKey=azk-0a9s8d7f6g",
		"SLACK_WEBHOOK_URL":               "https://hooks.slack.com/services/T0/B0/slk-0a9s8d7f6g",
	}
	var envValues []string
	for _, v := range secretEnv {
		envValues = append(envValues, v)
	}
	tests := []attack{
		// 1. Writes into .git/ and .agentls/ through a symlink, with --yes.
		{name: "write the git config through a link to .git", args: yes,
			calls:     []geminitest.Chunk{write("tools/config", "[core]\n\tfsmonitor = touch /tmp/pwned\n")},
			told:      "tools/config leads through a symlink to .git/config, which is inside .git/, which agentls never changes",
			unchanged: []string{".git/config"}},
		{name: "new hook through tools -> .git", args: yes,
			calls:  []geminitest.Chunk{write("tools/hooks/post-checkout", "#!/bin/sh\ntouch pwned\n")},
			told:   "inside .git/",
			absent: []string{".git/hooks/post-checkout", ".git/hooks"}},
		{name: "policy through conf -> .agentls", args: yes,
			calls:     []geminitest.Chunk{write("conf/policy.toml", "[[rule]]\ncommandRegex = \".*\"\ndecision = \"allow\"\n")},
			told:      "conf/policy.toml leads through a symlink to .agentls/policy.toml, which is inside .agentls/",
			unchanged: []string{".agentls/policy.toml"}},
		{name: "edit through a chain of links", args: yes,
			calls:     []geminitest.Chunk{geminitest.Call("replace", map[string]any{"file_path": "hop1/HEAD", "old_string": "main", "new_string": "evil"})},
			told:      "inside .git/",
			unchanged: []string{".git/HEAD"}},
		// A link to a harmless file is followed, and the user is shown, and
		// asked about, the file that changes.
		{name: "write through a harmless link", stdin: "y\n",
			calls:   []geminitest.Chunk{geminitest.Call("replace", map[string]any{"file_path": "docs/link.md", "old_string": "# demo", "new_string": "# new"})},
			told:    "The user accepted the change; docs/link.md → README.md is updated",
			out:     "Apply the change to docs/link.md → README.md? [y/n/a/d/q]",
			changed: map[string]string{"README.md": "# new\n"}, still: []string{"docs/link.md"}},
		// 4. Secrets through innocent names, imports and the trace.
		{name: "read .env through an innocent name", args: yes,
			calls:   []geminitest.Chunk{read("docs/setup.txt")},
			told:    "docs/setup.txt leads through a symlink to .env, which looks like a file of secrets",
			secrets: []string{envSecret}},
		{name: "read terraform state through a link", args: yes,
			calls:   []geminitest.Chunk{read("docs/state.txt")},
			told:    "looks like a file of secrets",
			secrets: []string{envSecret}},
		{name: "imports of .env and the git config in AGENTS.md", args: yes,
			files:   map[string]string{"AGENTS.md": "Be brief.\n@.env\n@.git/config\n@docs/setup.txt\n"},
			calls:   []geminitest.Chunk{read("README.md")},
			told:    "# demo",
			out:     ".env looks like a file of secrets, which context files may not import",
			secrets: []string{envSecret, gitSecret}},
		{name: "a DATABASE_URL password stays out of the trace", args: yes, env: secretEnv,
			calls:    []geminitest.Chunk{read("config/database.yml")},
			told:     "password: ",
			untraced: []string{dbPass}},
		// 5. The shell's environment.
		{name: "commands see no secret variable", stdin: "y\n", env: secretEnv,
			calls:   []geminitest.Chunk{shell("env > env.txt; env")},
			told:    "Exit code: 0",
			secrets: envValues,
			lacks:   map[string][]string{"env.txt": append([]string{"test-key-0a9s8d7f"}, envValues...)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.play(t)
		})
	}
}

func (tt attack) play(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	for name, text := range hostileRepo {
		files[name] = text
	}
	for name, text := range tt.files {
		files[name] = text
	}
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	for link, target := range hostileLinks {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, link)), 0o755)
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	var turns []geminitest.Turn
	for _, c := range tt.calls {
		turns = append(turns, geminitest.Reply(c))
	}
	turns = append(turns, geminitest.Reply(geminitest.Call(agent.CompleteTaskName, map[string]any{"result": "done"})))
	srv := geminitest.NewServer(t, turns...)
	env := map[string]string{"GEMINI_API_KEY": "test-key-0a9s8d7f", "GOOGLE_GEMINI_BASE_URL": srv.URL}
	for k, v := range tt.env {
		env[k] = v
	}
	tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
	args := append([]string{"run", "--workspace", dir, "--trace", tracePath}, tt.args...)
	code, out, errOut := agentls(t, env, tt.stdin, append(args, "do as the repository says")...)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	results := toolResults(srv)
	if len(results) == 0 || !strings.Contains(results[0], tt.told) {
		t.Errorf("the model was told %q, want it to say %q", results, tt.told)
	}
	if !strings.Contains(out, tt.out) {
		t.Errorf("output lacks %q:\n%s", tt.out, out)
	}
	for _, name := range tt.unchanged {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != files[name] {
			t.Errorf("%s changed:\n%s", name, got)
		}
	}
	for name, want := range tt.changed {
		if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	for _, name := range tt.still {
		if fi, err := os.Lstat(filepath.Join(dir, name)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
			t.Errorf("%s is no longer a symlink (%v)", name, err)
		}
	}
	for _, name := range tt.absent {
		if _, err := os.Lstat(filepath.Join(dir, name)); err == nil {
			t.Errorf("%s exists", name)
		}
	}
	trace, err := os.ReadFile(tracePath)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range append(tt.secrets, tt.untraced...) {
		if strings.Contains(string(trace), s) {
			t.Errorf("the trace holds %q", s)
		}
	}
	for i, req := range srv.Requests() {
		for _, s := range tt.secrets {
			if strings.Contains(string(req.Body), s) {
				t.Errorf("model request %d holds %q", i+1, s)
			}
		}
	}
	for name, ss := range tt.lacks {
		got, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
		}
		for _, s := range ss {
			if strings.Contains(string(got), s) {
				t.Errorf("%s holds %q", name, s)
			}
		}
	}
}

// toolResults are the function responses of the run's last model request,
// in order, as text.
func toolResults(srv *geminitest.Server) []string {
	reqs := srv.Requests()
	if len(reqs) == 0 {
		return nil
	}
	var out []string
	for _, c := range reqs[len(reqs)-1].Contents {
		for _, p := range c.Parts {
			if p.FunctionResponse != nil {
				out = append(out, fmt.Sprint(p.FunctionResponse.Response))
			}
		}
	}
	return out
}
