package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/workspace"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestContextFiles(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	user := t.TempDir()
	outside := t.TempDir()
	writeFiles(t, user, map[string]string{"AGENTS.md": "user rules\n"})
	writeFiles(t, outside, map[string]string{"secret.md": "do not read\n"})
	writeFiles(t, root, map[string]string{
		"AGENTS.md":            "root rules\n@docs/style.md\n",
		"docs/style.md":        "use tabs\n@deeper.md\n",
		"docs/deeper.md":       "deep\n",
		"svc/GEMINI.md":        "svc rules\n@../svc/GEMINI.md\n@" + filepath.Join(outside, "secret.md") + "\n",
		"svc/api/AGENTS.md":    "api rules\n",
		"other/AGENTS.md":      "not on the path\n",
		"svc/api/handler.go":   "package api\n",
		"svc/api/x/AGENTS.md":  "below the active file\n",
		"svc/api/x/unused.txt": "",
	})
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	// An unsaved buffer wins over the disk.
	ws.Open(filepath.Join(root, "svc/api/AGENTS.md"), "api rules (unsaved)\n", 1)

	files, errs := ws.ContextFiles(user, filepath.Join(root, "svc/api/handler.go"), nil)
	var got []string
	for _, f := range files {
		got = append(got, f.Path+": "+f.Content)
	}
	want := []string{
		filepath.Join(user, "AGENTS.md") + ": user rules\n",
		"AGENTS.md: root rules\n<!-- imported from docs/style.md -->\nuse tabs\n<!-- imported from deeper.md -->\ndeep\n<!-- end of import -->\n<!-- end of import -->\n",
		"svc/GEMINI.md: svc rules\n@" + filepath.Join(outside, "secret.md") + "\n",
		"svc/api/AGENTS.md: api rules (unsaved)\n",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("context files (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, e := range errs {
		msgs = append(msgs, e.Error())
	}
	joined := strings.Join(msgs, "\n")
	if !strings.Contains(joined, "cycle") || !strings.Contains(joined, "outside") {
		t.Errorf("errors = %q, want a cycle and an import outside the workspace", joined)
	}
	if strings.Contains(strings.Join(got, ""), "do not read") {
		t.Error("an import outside the workspace was read")
	}
}

func TestContextFilesDepthLimit(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	files := map[string]string{"AGENTS.md": "@1.md\n"}
	for i := 1; i <= 8; i++ {
		files[filepath.Base(itoa(i))+".md"] = "level " + itoa(i) + "\n@" + itoa(i+1) + ".md\n"
	}
	writeFiles(t, root, files)
	ws, _ := workspace.New(root)
	got, errs := ws.ContextFiles("", "", nil)
	if len(got) != 1 || strings.Contains(got[0].Content, "level 6") || !strings.Contains(got[0].Content, "level 5") {
		t.Errorf("content = %q", got[0].Content)
	}
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "levels deep") {
		t.Errorf("errors = %v", errs)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }

// A repository's context files and their imports pass the same checks as
// the tools' reads, on every path they lead through: nothing from .git/ or
// .agentls/, no secret-looking file, nothing outside the workspace. What is
// refused is reported and its content is sent nowhere.
func TestContextFilesRefuse(t *testing.T) {
	t.Parallel()
	const secret = "SECRET-VALUE-42"
	tests := []struct {
		name  string
		files map[string]string // AGENTS.md's content, and more
		links map[string]string // link → target
		says  string            // in the errors
	}{
		{name: "import of .env", files: map[string]string{"AGENTS.md": "rules\n@.env\n"}, says: ".env looks like a file of secrets"},
		{name: "import of .git/config", files: map[string]string{"AGENTS.md": "rules\n@.git/config\n"}, says: ".git/config is inside .git/"},
		{name: "import of .agentls/policy.toml", files: map[string]string{"AGENTS.md": "@.agentls/policy.toml\n"}, says: "inside .agentls/"},
		{name: "import through an innocent link", files: map[string]string{"AGENTS.md": "@docs/setup.txt\n"},
			links: map[string]string{"docs/setup.txt": "../.env"}, says: ".env looks like a file of secrets"},
		{name: "import of a private key", files: map[string]string{"AGENTS.md": "@deploy/id_deploy\n", "deploy/id_deploy": secret}, says: "looks like a file of secrets"},
		{name: "context file that is a link to .env", links: map[string]string{"AGENTS.md": ".env"}, says: ".env looks like a file of secrets"},
		{name: "context file that is a link out", links: map[string]string{"GEMINI.md": "../outside/notes.md"}, says: "outside the workspace"},
		{name: "import through a link out", files: map[string]string{"AGENTS.md": "@notes.md\n"},
			links: map[string]string{"notes.md": "../outside/notes.md"}, says: "outside the workspace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir, err := filepath.EvalSymlinks(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			root := filepath.Join(dir, "ws")
			writeFiles(t, dir, map[string]string{
				"ws/.env": "API_KEY=" + secret + "\n", "ws/.git/config": "[remote]\nurl = https://u:" + secret + "@host\n",
				"ws/.agentls/policy.toml": "# " + secret + "\n", "ws/docs/.keep": "", "outside/notes.md": secret + "\n",
			})
			writeFiles(t, root, tt.files)
			for link, target := range tt.links {
				if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
					t.Skip(err)
				}
			}
			ws, err := workspace.New(root)
			if err != nil {
				t.Fatal(err)
			}
			files, errs := ws.ContextFiles("", "", policy.New("").WithMode(policy.ModeDefault).CheckImport)
			for _, f := range files {
				if strings.Contains(f.Content, secret) {
					t.Errorf("%s holds the secret:\n%s", f.Path, f.Content)
				}
			}
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if joined := strings.Join(msgs, "\n"); !strings.Contains(joined, tt.says) {
				t.Errorf("errors %q do not say %q", joined, tt.says)
			}
		})
	}
}
