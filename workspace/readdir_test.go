//go:build unix

package workspace

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestReadDirStat checks ReadDirStat lists what os.ReadDir lists, sorted,
// with the Info Lstat gives, whether an entry's Info is read before done
// (on the open folder) or after (by its path).
func TestReadDirStat(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	writeFiles(t, root, map[string]string{"b.go": "package b\n", "a.txt": "aaaa", "sub/x": "", "zz.go": ""})
	p := func(name string) string { return filepath.Join(root, name) }
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.UTC)
	if err := os.Chtimes(p("b.go"), at, at); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("b.go", p("link.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(p("pipe"), 0o644); err != nil {
		t.Logf("no pipe: %v", err)
	}
	type entry struct {
		Name       string
		Type, Mode os.FileMode
		Size       int64
		ModTime    time.Time
	}
	list := func(chosen map[string]bool) []entry {
		t.Helper()
		var entries []os.DirEntry
		var err error
		if chosen == nil {
			entries, err = os.ReadDir(root)
		} else {
			var done func()
			entries, done, err = w.ReadDirStat(root)
			if err != nil {
				t.Fatal(err)
			}
			infos := map[string]os.FileInfo{}
			for _, e := range entries {
				if chosen[e.Name()] {
					if infos[e.Name()], err = e.Info(); err != nil {
						t.Fatal(err)
					}
				}
			}
			done()
			// Read before done, an Info stays what it was.
			for _, e := range entries {
				if info, err := e.Info(); chosen[e.Name()] && (err != nil || info != infos[e.Name()]) {
					t.Errorf("%s: Info after done %v, %v; before %v", e.Name(), info, err, infos[e.Name()])
				}
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		var out []entry
		for _, e := range entries {
			info, err := e.Info()
			if err != nil {
				t.Fatal(err)
			}
			if info.Name() != e.Name() || info.Mode().Type() != e.Type() {
				t.Errorf("%s: info %s, %v", e.Name(), info.Name(), info.Mode())
			}
			en := entry{Name: e.Name(), Type: e.Type(), Mode: info.Mode()}
			if !e.IsDir() {
				en.Size, en.ModTime = info.Size(), info.ModTime().UTC()
			}
			out = append(out, en)
		}
		return out
	}
	want := list(nil)
	if len(want) < 5 {
		t.Fatalf("os.ReadDir: %v", want)
	}
	for _, chosen := range []map[string]bool{{}, {"b.go": true, "zz.go": true, "link.go": true, "pipe": true, "sub": true}} {
		if diff := cmp.Diff(want, list(chosen)); diff != "" {
			t.Errorf("chosen %v (-os.ReadDir +ReadDirStat):\n%s", chosen, diff)
		}
	}
	if _, _, err := w.ReadDirStat(p("missing")); !os.IsNotExist(err) {
		t.Errorf("missing folder: %v", err)
	}
}
