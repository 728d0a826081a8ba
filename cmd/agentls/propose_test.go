//go:build unix

package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent"
)

// The terminal writes a change only where the tool checked it would go:
// a folder swapped for a symlink into .git/ while the user was deciding
// gets nothing, and a change through a link writes the file the link leads
// to, keeping the link.
func TestWriteChangeChecksTheTargetAgain(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "sub", "x.txt"), "old\n")
	write(t, filepath.Join(dir, ".git", "x.txt"), "old\n") // the same text: only the link check can tell
	write(t, filepath.Join(dir, "README.md"), "old\n")
	if err := os.Symlink("README.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}

	swapped := agent.Change{Path: filepath.Join(dir, "sub", "x.txt"), Name: "sub/x.txt", Target: filepath.Join(dir, "sub", "x.txt"), Old: "old\n", New: "evil\n"}
	if err := os.Rename(filepath.Join(dir, "sub"), filepath.Join(dir, "sub.orig")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".git", filepath.Join(dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if d := writeChange(swapped); d.Outcome != agent.OutcomeConflict {
		t.Errorf("decision %+v, want a conflict", d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".git", "x.txt")); string(got) != "old\n" {
		t.Errorf(".git/x.txt = %q", got)
	}

	linked := agent.Change{Path: filepath.Join(dir, "link.md"), Name: "link.md → README.md", Target: filepath.Join(dir, "README.md"), Old: "old\n", New: "new\n"}
	if d := writeChange(linked); d.Outcome != agent.OutcomeApplied {
		t.Fatalf("decision %+v", d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(got) != "new\n" {
		t.Errorf("README.md = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.md is no longer a link: %v", err)
	}
}
