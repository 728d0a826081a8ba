//go:build unix

package tools_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// TestSandbox attacks the workspace's confinement through every tool, on a
// real disk with links leading out, and checks each attack is refused with
// a result the model can read, and left nothing behind.
func TestSandbox(t *testing.T) {
	t.Parallel()
	const outside = "path is outside the workspace"
	const secret = "looks like a file of secrets"
	tests := []struct {
		name    string
		call    *genai.FunctionCall
		refused bool              // an error result
		says    string            // part of the result
		gone    string            // a path (relative to the temporary folder) that must not exist afterwards
		kept    string            // a path that must still exist
		links   map[string]string // more symlinks: link → target, relative to the temporary folder
	}{
		{name: "traversal", call: call("read_file", map[string]any{"file_path": "../outside/secret.txt"}), refused: true, says: outside},
		{name: "deep traversal", call: call("read_file", map[string]any{"file_path": "sub/../../../../../../etc/passwd"}), refused: true, says: outside},
		{name: "traversal to write", call: call("write_file", map[string]any{"file_path": "../outside/new.txt", "content": "x"}),
			refused: true, says: outside, gone: "outside/new.txt"},
		{name: "symlinked file escaping", call: call("read_file", map[string]any{"file_path": "link-out"}), refused: true, says: outside},
		{name: "symlinked file escaping, replaced", call: call("replace", map[string]any{"file_path": "link-out", "old_string": "secret", "new_string": "x"}),
			refused: true, says: outside},
		{name: "symlinked folder escaping", call: call("read_file", map[string]any{"file_path": "dir-out/secret.txt"}), refused: true, says: outside},
		{name: "new file in a symlinked folder escaping", call: call("write_file", map[string]any{"file_path": "dir-out/evil.txt", "content": "x"}),
			refused: true, says: outside, gone: "outside/evil.txt"},
		{name: "listing a symlinked folder escaping", call: call("list_directory", map[string]any{"dir_path": "dir-out"}), refused: true, says: outside},
		{name: "searches do not follow links out", call: call("grep_search", map[string]any{"pattern": "secret"}),
			says: "No matches for /secret/ in the workspace root."},
		{name: "absolute path", call: call("read_file", map[string]any{"file_path": "/etc/passwd"}), refused: true, says: outside},
		{name: "home path", call: call("read_file", map[string]any{"file_path": "~/.ssh/id_rsa"}), refused: true, says: outside},
		{name: "encoded path is no path", call: call("read_file", map[string]any{"file_path": "%2e%2e/outside/secret.txt"}),
			refused: true, says: "%2e%2e/outside/secret.txt does not exist"},
		{name: "NUL byte", call: call("read_file", map[string]any{"file_path": "main.go\x00.txt"}), refused: true, says: "NUL byte"},
		{name: "secret file", call: call("read_file", map[string]any{"file_path": ".env"}), refused: true, says: secret},
		{name: "private key", call: call("read_file", map[string]any{"file_path": "sub/id_rsa"}), refused: true, says: secret},
		{name: "secrets are not searched", call: call("grep_search", map[string]any{"pattern": "API_KEY"}),
			says: "No matches for /API_KEY/ in the workspace root.\n(skipped 1 binary files, 2 secret-looking files)"},
		{name: "write into .git", call: call("write_file", map[string]any{"file_path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}),
			refused: true, says: "inside .git/", gone: "ws/.git/hooks/pre-commit"},
		{name: "edit .git/config", call: call("replace", map[string]any{"file_path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = evil"}),
			refused: true, says: "inside .git/"},
		{name: "write the git config through a link", call: call("write_file", map[string]any{"file_path": "tools/config", "content": "[core]\n\tfsmonitor = evil\n"}),
			refused: true, says: "tools/config leads through a symlink to .git/config, which is inside .git/", links: map[string]string{"ws/tools": ".git"}},
		{name: "new hook through a link", call: call("write_file", map[string]any{"file_path": "tools/hooks/post-checkout", "content": "#!/bin/sh\n"}),
			refused: true, says: "inside .git/", gone: "ws/.git/hooks", links: map[string]string{"ws/tools": ".git"}},
		{name: "policy through a link", call: call("write_file", map[string]any{"file_path": "conf/policy.toml", "content": "x"}),
			refused: true, says: "conf/policy.toml leads through a symlink to .agentls/policy.toml, which is inside .agentls/",
			links: map[string]string{"ws/conf": ".agentls"}},
		{name: ".env through an innocent name", call: call("read_file", map[string]any{"file_path": "docs/setup.txt"}),
			refused: true, says: "docs/setup.txt leads through a symlink to .env, which " + secret, links: map[string]string{"ws/docs/setup.txt": "../.env"}},
		{name: "cd .. && rm", call: shellCall("cd .. && rm -rf outside"), refused: true, says: "`cd ..` leaves the workspace", kept: "outside/secret.txt"},
		{name: "cd to an absolute folder", call: shellCall("cd " + "/tmp && touch pwned"), refused: true, says: "leaves the workspace"},
		{name: "injection through dir_path", call: shellCall("ls", "dir_path", "sub; touch pwned"),
			refused: true, says: `dir_path "sub; touch pwned" is not a folder of the workspace`, gone: "ws/pwned"},
		{name: "substitution through dir_path", call: shellCall("ls", "dir_path", "$(touch pwned)"),
			refused: true, says: "is not a folder of the workspace", gone: "ws/pwned"},
		{name: "dir_path traversal", call: shellCall("ls", "dir_path", "../outside"), refused: true, says: outside},
		{name: "dir_path through a link out", call: shellCall("ls", "dir_path", "dir-out"), refused: true, says: outside},
		{name: "huge output", call: shellCall("head -c 50000000 /dev/zero | tr '\\0' x"), says: "bytes omitted"},
		{name: "binary file", call: call("read_file", map[string]any{"file_path": "logo.png"}), refused: true, says: "logo.png is a binary file (image/png)"},
		{name: "glob out of dir_path", call: call("glob", map[string]any{"pattern": "../**/*.txt", "dir_path": "sub"}), refused: true, says: "leaves dir_path"},
		{name: "search out of the workspace", call: call("grep_search", map[string]any{"pattern": "secret", "dir_path": "../outside"}), refused: true, says: outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDisk(t, map[string]string{
				"ws/main.go":              "package main\n",
				"ws/.env":                 "API_KEY=123\n",
				"ws/sub/id_rsa":           "-----BEGIN OPENSSH PRIVATE KEY-----\nAPI_KEY\n",
				"ws/logo.png":             "\x89PNG\r\n\x1a\n\x00\x00API_KEY",
				"ws/.git/config":          "[core]\n",
				"ws/.agentls/policy.toml": "",
				"outside/secret.txt":      "secret\n",
			})
			d.symlink(t, filepath.Join(d.dir, "outside", "secret.txt"), "ws/link-out")
			d.symlink(t, filepath.Join(d.dir, "outside"), "ws/dir-out")
			for link, target := range tt.links {
				os.MkdirAll(filepath.Dir(filepath.Join(d.dir, link)), 0o755)
				d.symlink(t, target, link)
			}
			tr := play(t, script{disk: d, cfg: approveAll, calls: []*genai.FunctionCall{tt.call}})
			rs := tr.replies(t)
			key := "output"
			if tt.refused {
				key = "error"
			}
			got, ok := rs[0].Response[key].(string)
			if !ok || !strings.Contains(got, tt.says) {
				t.Errorf("response %v, want %s saying %q", rs[0].Response, key, tt.says)
			}
			if len(got) > 20<<10 {
				t.Errorf("the result has %d bytes", len(got))
			}
			if len(tr.changes) != 0 {
				t.Errorf("the Proposer got %v", tr.changes)
			}
			if tt.gone != "" {
				if _, err := os.Lstat(filepath.Join(d.dir, tt.gone)); err == nil {
					t.Errorf("%s was created", tt.gone)
				}
			}
			if tt.kept != "" {
				if _, err := os.Lstat(filepath.Join(d.dir, tt.kept)); err != nil {
					t.Errorf("%s is gone: %v", tt.kept, err)
				}
			}
		})
	}
}

// read_file reads the editor's unsaved buffer when the file is open.
func TestReadFileReadsTheBuffer(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{"ws/main.go": "package main // on disk\n"})
	d.ws.Open(filepath.Join(d.root, "main.go"), "package main // unsaved\n", 3)
	tr := play(t, script{disk: d, calls: []*genai.FunctionCall{call("read_file", map[string]any{"file_path": "main.go"})}})
	if got := tr.replies(t)[0].Response["output"]; got != "package main // unsaved\n" {
		t.Errorf("read_file = %q", got)
	}
}

// A command whose dir_path is a symlink is approved, and runs, in the
// folder the link leads to: the user sees where it really runs.
func TestShellDirIsTheRealFolder(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{"ws/.git/HEAD": "ref: refs/heads/main\n"})
	d.symlink(t, ".git", "ws/tools")
	ap := &fakeApprover{}
	tr := play(t, script{disk: d, cfg: func(cfg *agent.Config) { cfg.Approver = ap },
		calls: []*genai.FunctionCall{shellCall("pwd -P", "dir_path", "tools")}})
	want := filepath.Join(d.root, ".git")
	if got := ap.asked(); len(got) != 1 || got[0].Dir != want {
		t.Errorf("approvals %+v, want one for %s", got, want)
	}
	if out, _ := tr.replies(t)[0].Response["output"].(string); !strings.Contains(out, want+"\n") {
		t.Errorf("output %q", out)
	}
}
