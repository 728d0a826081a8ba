package workspace

import (
	"errors"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	writeFiles(t, root, map[string]string{
		"disk.go":    "on disk\n",
		"open.go":    "on disk\n",
		"closed.go":  "on disk\n",
		"sub/dir.go": "x\n",
	})
	p := func(name string) string { return filepath.Join(root, name) }
	w.Open(p("open.go"), "in the editor\n", 3)
	w.Open(p("unsaved.go"), "never saved\n", 1)
	w.Open(p("closed.go"), "was open\n", 2)
	w.Close(p("closed.go"))

	tests := []struct {
		name    string
		want    File
		wantErr error
	}{
		{"disk.go", File{Path: p("disk.go"), Text: "on disk\n", Exists: true}, nil},
		{"open.go", File{Path: p("open.go"), Text: "in the editor\n", Version: 3, Open: true, Exists: true}, nil},
		{"unsaved.go", File{Path: p("unsaved.go"), Text: "never saved\n", Version: 1, Open: true}, nil},
		{"closed.go", File{Path: p("closed.go"), Text: "on disk\n", Exists: true}, nil},
		{"missing.go", File{}, fs.ErrNotExist},
		{"sub/missing/x.go", File{}, fs.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := w.ReadFile(p(tt.name))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("ReadFile error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReadFile (-want +got):\n%s", diff)
			}
		})
	}

	if _, err := w.ReadFile(p("sub")); err == nil {
		t.Error("ReadFile of a directory succeeded")
	}
}

func TestReadDir(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	writeFiles(t, root, map[string]string{"b.go": "", "a.go": "", "sub/c.go": ""})
	w.Open(filepath.Join(root, "unsaved.go"), "x", 1) // editor only: not listed

	entries, err := w.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		got = append(got, name)
	}
	if diff := cmp.Diff([]string{"a.go", "b.go", "sub/"}, got); diff != "" {
		t.Errorf("ReadDir (-want +got):\n%s", diff)
	}
	if _, err := w.ReadDir(filepath.Join(root, "nope")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadDir(nope) error = %v, want fs.ErrNotExist", err)
	}
}
