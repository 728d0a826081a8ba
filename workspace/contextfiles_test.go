package workspace_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

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

	files, errs := ws.ContextFiles(user, filepath.Join(root, "svc/api/handler.go"))
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
	got, errs := ws.ContextFiles("", "")
	if len(got) != 1 || strings.Contains(got[0].Content, "level 6") || !strings.Contains(got[0].Content, "level 5") {
		t.Errorf("content = %q", got[0].Content)
	}
	if len(errs) == 0 || !strings.Contains(errs[0].Error(), "levels deep") {
		t.Errorf("errors = %v", errs)
	}
}

func itoa(i int) string { return string(rune('0' + i)) }
