package workspace

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestUnsaved(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{"same.go": "package a\n", "edited.go": "package a\n"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	root := w.Roots()[0]
	if got := w.Unsaved(); len(got) != 0 {
		t.Errorf("no buffer open: Unsaved = %q", got)
	}
	w.Open(filepath.Join(root, "same.go"), "package a\n", 1)
	w.Open(filepath.Join(root, "edited.go"), "package a // edited\n", 1)
	w.Open(filepath.Join(root, "new.go"), "package a\n", 1)
	want := []string{filepath.Join(root, "edited.go"), filepath.Join(root, "new.go")}
	if got := w.Unsaved(); !slices.Equal(got, want) {
		t.Errorf("Unsaved = %q, want %q", got, want)
	}
	// Saved: the disk now holds the buffer.
	if err := os.WriteFile(filepath.Join(root, "edited.go"), []byte("package a // edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	w.Close(filepath.Join(root, "new.go"))
	if got := w.Unsaved(); len(got) != 0 {
		t.Errorf("after saving and closing: Unsaved = %q", got)
	}
}
