//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAppendFile checks AppendFile reads what ReadFile reads, appended to
// the buffer given, and skips what is too long without reading it.
func TestAppendFile(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	big := strings.Repeat("x", 70_000) // more than one read of an initial buffer
	writeFiles(t, root, map[string]string{"disk.go": "on disk\n", "open.go": "on disk\n", "big.txt": big, "empty.txt": ""})
	p := func(name string) string { return filepath.Join(root, name) }
	w.Open(p("open.go"), "in the editor\n", 3)
	w.Open(p("unsaved.go"), "never saved\n", 1)
	if err := syscall.Mkfifo(p("pipe"), 0o644); err != nil {
		t.Logf("no pipe: %v", err)
	}

	tests := []struct {
		name     string
		max      int64
		want     string // after "head:"
		wantSize int64
		wantErr  bool
	}{
		{"disk.go", 100, "on disk\n", 8, false},
		{"open.go", 100, "in the editor\n", 14, false},
		{"unsaved.go", 100, "never saved\n", 12, false},
		{"big.txt", 100_000, big, 70_000, false},
		{"big.txt", 69_999, "", 70_000, false}, // too long: not read
		{"open.go", 13, "", 14, false},
		{"empty.txt", 100, "", 0, false},
		{"missing.go", 100, "", 0, true},
		{"pipe", 100, "", 0, true}, // never blocks
	}
	for _, tt := range tests {
		buf, size, err := w.AppendFile([]byte("head:"), p(tt.name), tt.max)
		if tt.wantErr != (err != nil) || size != tt.wantSize {
			t.Errorf("%s: size %d, error %v; want %d, error %v", tt.name, size, err, tt.wantSize, tt.wantErr)
		}
		if diff := cmp.Diff("head:"+tt.want, string(buf)); diff != "" && len(diff) < 1000 {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		} else if diff != "" {
			t.Errorf("%s: %d bytes, want %d", tt.name, len(buf), 5+len(tt.want))
		}
	}
	if _, _, err := w.AppendFile(nil, p("missing.go"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: %v, want fs.ErrNotExist", err)
	}
}

// TestAppendFileView checks that a view which embeds a Folder does not read
// around its own ReadFile through the Folder's AppendFile.
func TestAppendFileView(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	writeFiles(t, root, map[string]string{"a.go": "a\n"})
	f := w.Folder(root)
	type staged struct{ *Folder }
	view := staged{f}
	if _, _, err := view.AppendFile(view, nil, filepath.Join(root, "a.go"), 100); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("through another view: %v, want errors.ErrUnsupported", err)
	}
	buf, _, err := f.AppendFile(f, nil, filepath.Join(root, "a.go"), 100)
	if err != nil || string(buf) != "a\n" {
		t.Errorf("through the folder: %q, %v", buf, err)
	}

}
