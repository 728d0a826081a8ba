//go:build unix

package runner_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/runner"
)

// A front end that writes to disk writes a change only where the tool checked it would go:
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
	if d := runner.WriteChange(swapped); d.Outcome != agent.OutcomeConflict {
		t.Errorf("decision %+v, want a conflict", d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, ".git", "x.txt")); string(got) != "old\n" {
		t.Errorf(".git/x.txt = %q", got)
	}

	linked := agent.Change{Path: filepath.Join(dir, "link.md"), Name: "link.md → README.md", Target: filepath.Join(dir, "README.md"), Old: "old\n", New: "new\n"}
	if d := runner.WriteChange(linked); d.Outcome != agent.OutcomeApplied {
		t.Fatalf("decision %+v", d)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "README.md")); string(got) != "new\n" {
		t.Errorf("README.md = %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "link.md")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.md is no longer a link: %v", err)
	}
}

// A new file is written only while there is none; a file is written only
// over the text the change was computed against.
func TestWriteChangeChecksTheText(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "a.txt")
	if d := runner.WriteChange(agent.Change{Path: path, Name: "a.txt", New: "one\n", Create: true}); d.Outcome != agent.OutcomeApplied {
		t.Fatalf("create: %+v", d)
	}
	if d := runner.WriteChange(agent.Change{Path: path, Name: "a.txt", New: "two\n", Create: true}); d.Outcome != agent.OutcomeConflict {
		t.Errorf("a second create: %+v, want a conflict", d)
	}
	if d := runner.WriteChange(agent.Change{Path: path, Name: "a.txt", Old: "stale\n", New: "two\n"}); d.Outcome != agent.OutcomeConflict {
		t.Errorf("a change over other text: %+v, want a conflict", d)
	}
	if got, _ := os.ReadFile(path); string(got) != "one\n" {
		t.Errorf("a.txt = %q, want the first write only", got)
	}
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
