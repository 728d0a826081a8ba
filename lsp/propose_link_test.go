//go:build unix

package lsp

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/workspace"
)

// A proposal is sent only while its path still leads to the file the tool
// checked: a folder swapped for a symlink into .git/ since then makes it a
// conflict, and the editor is sent nothing.
func TestPrepareChecksTheTargetAgain(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sub/x.txt", ".git/x.txt"} {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	c := change{path: filepath.Join(dir, "sub", "x.txt"), name: "sub/x.txt", target: filepath.Join(dir, "sub", "x.txt"), base: "old\n", mine: "new\n"}
	if _, _, ok := prepare(ws, &appliedEdits{}, c); !ok {
		t.Fatal("the change does not apply before the swap")
	}
	os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.orig"))
	if err := os.Symlink(".git", filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if _, d, ok := prepare(ws, &appliedEdits{}, c); ok || d.Outcome != agent.OutcomeConflict {
		t.Errorf("prepare after the swap: ok %v, decision %+v; want a conflict", ok, d)
	}
}
