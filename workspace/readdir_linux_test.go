package workspace

import (
	"os"
	"path/filepath"
	"testing"
)

// A folder the walk lists is opened without following a symlink: a folder
// swapped for a link to elsewhere after its parent was listed is not read
// through it (the walk resolves its start, and never follows links below).
func TestReadDirStatFollowsNoLink(t *testing.T) {
	t.Parallel()
	root, outside := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(outside, "secret.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "sub")
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	entries, done, err := readDirStat(link)
	if err == nil {
		done()
		t.Fatalf("listed a folder through a symlink: %v", entries)
	}
	if entries, done, err := readDirStat(outside); err != nil || len(entries) != 1 {
		t.Fatalf("the folder itself: %v, %v", entries, err)
	} else {
		done()
	}
}
