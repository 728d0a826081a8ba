package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/edits/lspedit"
)

// After a change that does not fit the buffer, the editor has a text the
// overlay never saw: reads refuse to guess it (a proposal computed on the
// old text would be applied to the new one), further range changes are
// refused, and the editor's whole text brings the buffer back.
func TestOutOfSync(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	path := filepath.Join(root, "a.go")
	os.WriteFile(path, []byte("on disk\n"), 0o644)
	w.Open(path, "a\nb\n", 1)

	if err := w.Change(path, 2, []Change{{Range: rng(7, 0, 7, 0), Text: "x"}}, lspedit.UTF16); !errors.Is(err, lspedit.ErrPosition) {
		t.Fatalf("change past the end = %v, want ErrPosition", err)
	}
	if f, err := w.ReadFile(path); !errors.Is(err, ErrOutOfSync) {
		t.Errorf("ReadFile of an out-of-sync buffer = %+v, %v; want ErrOutOfSync", f, err)
	}
	if err := w.Change(path, 3, []Change{{Range: rng(0, 0, 0, 0), Text: "y"}}, lspedit.UTF16); !errors.Is(err, ErrOutOfSync) {
		t.Errorf("range change to an out-of-sync buffer = %v, want ErrOutOfSync", err)
	}
	if got := bufferOf(w, path); got != (bufferState{"a\nb\n", 1, true}) {
		t.Errorf("buffer = %+v, want the last text known", got)
	}
	// A notification whose last whole text comes before a range change
	// brings it back; changes before the whole text are not looked at.
	err := w.Change(path, 4, []Change{{Range: rng(9, 0, 9, 0), Text: "?"}, {Text: "c\n"}, {Range: rng(1, 0, 1, 0), Text: "d"}}, lspedit.UTF16)
	if err != nil {
		t.Fatalf("whole text after an out-of-sync buffer: %v", err)
	}
	if f, err := w.ReadFile(path); err != nil || f.Text != "c\nd" || f.Version != 4 {
		t.Errorf("ReadFile after the whole text = %+v, %v", f, err)
	}

	// didOpen brings it back too.
	w.Change(path, 5, []Change{{Range: rng(9, 0, 9, 0)}}, lspedit.UTF16)
	w.Open(path, "e\n", 6)
	if f, err := w.ReadFile(path); err != nil || f.Text != "e\n" {
		t.Errorf("ReadFile after didOpen = %+v, %v", f, err)
	}
}
