package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNew(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tmp, map[string]string{"a/x.go": "", "b/y.go": "", "file.txt": ""})
	a, b := filepath.Join(tmp, "a"), filepath.Join(tmp, "b")
	tests := []struct {
		name    string
		roots   []string
		want    []string
		wantErr bool
	}{
		{"one", []string{a}, []string{a}, false},
		{"order kept", []string{b, a}, []string{b, a}, false},
		{"cleaned", []string{a + "/./../a/"}, []string{a}, false},
		{"duplicates dropped", []string{a, a + "/", b, a}, []string{a, b}, false},
		{"missing ones skipped", []string{filepath.Join(tmp, "nope"), b}, []string{b}, false},
		{"files skipped", []string{filepath.Join(tmp, "file.txt"), a}, []string{a}, false},
		{"none exists", []string{filepath.Join(tmp, "nope")}, nil, true},
		{"only a file", []string{filepath.Join(tmp, "file.txt")}, nil, true},
		{"empty name", []string{""}, nil, true},
		{"nothing", nil, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, err := New(tt.roots...)
			if (err != nil) != tt.wantErr {
				t.Fatalf("New(%q) error = %v, want error %v", tt.roots, err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if diff := cmp.Diff(tt.want, w.Roots()); diff != "" {
				t.Errorf("Roots (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewRelative(t *testing.T) {
	// No t.Parallel: a relative root is taken from the working directory.
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	wd, err = filepath.EvalSymlinks(wd)
	if err != nil {
		t.Fatal(err)
	}
	w, err := New(".")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{wd}, w.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
}

func TestSetRoots(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	other := t.TempDir()
	if err := w.SetRoots(filepath.Join(root, "nope")); err == nil {
		t.Error("SetRoots with no existing folder succeeded")
	}
	if diff := cmp.Diff([]string{root}, w.Roots()); diff != "" {
		t.Errorf("Roots after failed SetRoots (-want +got):\n%s", diff)
	}
	w.Open(filepath.Join(root, "a.go"), "kept", 1)
	if err := w.SetRoots(other, root); err != nil {
		t.Fatal(err)
	}
	other, _ = filepath.EvalSymlinks(other)
	if diff := cmp.Diff([]string{other, root}, w.Roots()); diff != "" {
		t.Errorf("Roots after SetRoots (-want +got):\n%s", diff)
	}
	if text, _, ok := w.Buffer(filepath.Join(root, "a.go")); !ok || text != "kept" {
		t.Errorf("buffer lost by SetRoots: %q, %v", text, ok)
	}
}

func TestRootFor(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, tmp, map[string]string{"ws/nested/x.go": "", "ws2/y.go": ""})
	ws, nested, ws2 := filepath.Join(tmp, "ws"), filepath.Join(tmp, "ws", "nested"), filepath.Join(tmp, "ws2")
	w, err := New(ws, nested, ws2)
	if err != nil {
		t.Fatal(err)
	}
	type result struct {
		Root string
		OK   bool
	}
	tests := []struct {
		path string
		want result
	}{
		{ws, result{ws, true}},
		{ws + "/a.go", result{ws, true}},
		{ws + "/nested", result{nested, true}},
		{ws + "/nested/x.go", result{nested, true}},
		{ws + "/nestedx/y.go", result{ws, true}},
		{ws + "/nested/../a.go", result{ws, true}},
		{ws2 + "/y.go", result{ws2, true}},
		{ws + "-evil/z.go", result{}},
		{tmp, result{}},
		{"/", result{}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			t.Parallel()
			root, ok := w.RootFor(filepath.FromSlash(tt.path))
			if diff := cmp.Diff(tt.want, result{root, ok}); diff != "" {
				t.Errorf("RootFor(%q) (-want +got):\n%s", tt.path, diff)
			}
		})
	}
}
