package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
)

// rng returns the range l1:c1-l2:c2.
func rng(l1, c1, l2, c2 uint32) *protocol.Range {
	return &protocol.Range{
		Start: protocol.Position{Line: l1, Character: c1},
		End:   protocol.Position{Line: l2, Character: c2},
	}
}

// newWorkspace returns a workspace with one fresh root, and that root.
func newWorkspace(t *testing.T) (*Workspace, string) {
	t.Helper()
	w, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return w, w.Roots()[0]
}

type bufferState struct {
	Text    string
	Version int32
	Open    bool
}

func bufferOf(w *Workspace, path string) bufferState {
	text, version, ok := w.Buffer(path)
	return bufferState{text, version, ok}
}

func TestChange(t *testing.T) {
	t.Parallel()
	// Line 0 has a 2-byte rune, line 1 three 3-byte runes (one UTF-16 unit
	// each), line 2 a 4-byte rune (a UTF-16 surrogate pair).
	const multi = "héllo\n日本語\n😀x\n"
	tests := []struct {
		name    string
		text    string
		version int32 // of the Change; the buffer is opened at version 1
		enc     lspedit.Encoding
		changes []Change
		want    bufferState
		wantErr error
	}{
		{
			name:    "incremental UTF-16 sequence, each against the text before it",
			text:    multi,
			version: 2,
			enc:     lspedit.UTF16,
			changes: []Change{
				{Range: rng(0, 1, 0, 2), Text: "e"},         // é → e
				{Range: rng(1, 2, 1, 2), Text: "!"},         // after 本
				{Range: rng(2, 0, 2, 2), Text: "🎉🎉"},        // the pair
				{Range: rng(2, 4, 2, 5), Text: ""},          // x, now after 4 units
				{Range: rng(3, 0, 3, 0), Text: "end"},       // end of text
				{Range: rng(0, 0, 0, 0), Text: "é"},         // shifts line 0
				{Range: rng(0, 1, 0, 1), Text: "->"},        // after the new é
				{Range: rng(1, 0, 2, 0), Text: "日本\n"},      // whole line 1
				{Range: rng(0, 100, 1, 0), Text: " tail\n"}, // past line end clamps
			},
			want: bufferState{"é->hello tail\n日本\n🎉🎉\nend", 2, true},
		},
		{
			name:    "UTF-8 positions count bytes",
			text:    multi,
			version: 2,
			enc:     lspedit.UTF8,
			changes: []Change{{Range: rng(1, 3, 1, 6), Text: "X"}, {Range: rng(2, 4, 2, 5), Text: "Y"}},
			want:    bufferState{"héllo\n日X語\n😀Y\n", 2, true},
		},
		{
			name:    "UTF-32 positions count code points",
			text:    multi,
			version: 2,
			enc:     lspedit.UTF32,
			changes: []Change{{Range: rng(2, 1, 2, 2), Text: "Z"}, {Range: rng(0, 1, 0, 2), Text: "E"}},
			want:    bufferState{"hEllo\n日本語\n😀Z\n", 2, true},
		},
		{
			name:    "whole document replace",
			text:    multi,
			version: 7,
			changes: []Change{{Text: "new\ntext"}},
			want:    bufferState{"new\ntext", 7, true},
		},
		{
			name:    "whole replace then incremental on the new text",
			text:    multi,
			version: 2,
			changes: []Change{{Range: rng(0, 0, 0, 1), Text: "H"}, {Text: "ab"}, {Range: rng(0, 1, 0, 1), Text: "😀"}},
			want:    bufferState{"a😀b", 2, true},
		},
		{
			name:    "no changes only bumps the version",
			text:    multi,
			version: 2,
			want:    bufferState{multi, 2, true},
		},
		{
			name:    "inside a surrogate pair leaves the buffer unchanged",
			text:    multi,
			version: 2,
			changes: []Change{{Range: rng(2, 1, 2, 1), Text: "!"}},
			want:    bufferState{multi, 1, true},
			wantErr: lspedit.ErrPosition,
		},
		{
			name:    "line past the end leaves the buffer unchanged",
			text:    multi,
			version: 2,
			changes: []Change{{Range: rng(9, 0, 9, 0), Text: "!"}},
			want:    bufferState{multi, 1, true},
			wantErr: lspedit.ErrPosition,
		},
		{
			name:    "start after end leaves the buffer unchanged",
			text:    multi,
			version: 2,
			changes: []Change{{Range: rng(1, 0, 0, 0), Text: "!"}},
			want:    bufferState{multi, 1, true},
			wantErr: lspedit.ErrPosition,
		},
		{
			name:    "a bad change after good ones undoes them all",
			text:    multi,
			version: 2,
			changes: []Change{{Range: rng(0, 0, 0, 0), Text: "ok"}, {Text: "whole"}, {Range: rng(5, 0, 5, 1)}},
			want:    bufferState{multi, 1, true},
			wantErr: lspedit.ErrPosition,
		},
		{
			name:    "same version is refused",
			text:    multi,
			version: 1,
			changes: []Change{{Text: "x"}},
			want:    bufferState{multi, 1, true},
			wantErr: ErrVersion,
		},
		{
			name:    "older version is refused",
			text:    multi,
			version: -3,
			changes: []Change{{Text: "x"}},
			want:    bufferState{multi, 1, true},
			wantErr: ErrVersion,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			w, root := newWorkspace(t)
			path := filepath.Join(root, "a.go")
			w.Open(path, tt.text, 1)
			err := w.Change(path, tt.version, tt.changes, tt.enc)
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("Change error = %v, want %v", err, tt.wantErr)
			}
			if diff := cmp.Diff(tt.want, bufferOf(w, path)); diff != "" {
				t.Errorf("buffer after Change (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOverlayLifecycle(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	path := filepath.Join(root, "sub", "a.go")
	step := func(what string, want bufferState) {
		t.Helper()
		if diff := cmp.Diff(want, bufferOf(w, path)); diff != "" {
			t.Errorf("after %s (-want +got):\n%s", what, diff)
		}
	}

	if err := w.Change(path, 1, []Change{{Text: "x"}}, lspedit.UTF16); !errors.Is(err, ErrNotOpen) {
		t.Errorf("Change before Open = %v, want ErrNotOpen", err)
	}
	step("nothing", bufferState{})

	w.Open(path, "package a\n", 3)
	step("Open", bufferState{"package a\n", 3, true})
	// Paths are cleaned, so another spelling reaches the same buffer.
	step("Open (other spelling)", bufferOf(w, filepath.Join(root, "sub", "..", "sub", "a.go")))

	if err := w.Change(path, 4, []Change{{Range: rng(1, 0, 1, 0), Text: "// 日本\n"}}, lspedit.UTF16); err != nil {
		t.Fatal(err)
	}
	step("Change 4", bufferState{"package a\n// 日本\n", 4, true})
	if err := w.Change(path, 9, []Change{{Range: rng(1, 3, 1, 4), Text: "語"}}, lspedit.UTF16); err != nil {
		t.Fatal(err)
	}
	step("Change 9", bufferState{"package a\n// 語本\n", 9, true})
	if err := w.Change(path, 5, []Change{{Text: "stale"}}, lspedit.UTF16); !errors.Is(err, ErrVersion) {
		t.Errorf("stale Change = %v, want ErrVersion", err)
	}
	step("stale Change", bufferState{"package a\n// 語本\n", 9, true})

	w.Open(path, "reopened", 1) // didOpen again replaces, whatever the version
	step("second Open", bufferState{"reopened", 1, true})

	w.Close(path)
	step("Close", bufferState{})
	if err := w.Change(path, 2, []Change{{Text: "x"}}, lspedit.UTF16); !errors.Is(err, ErrNotOpen) {
		t.Errorf("Change after Close = %v, want ErrNotOpen", err)
	}
	w.Close(path) // closing twice is harmless
}

// TestChangeConcurrent runs readers and competing writers on one buffer; run
// it with -race. Every successful Change adds one "x", so the number of x's
// must equal the number of successes, and text and version must always be
// read as a pair.
func TestChangeConcurrent(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	path := filepath.Join(root, "a.go")
	w.Open(path, "", 0)

	const writers, perWriter = 4, 200
	var (
		nextVersion atomic.Int32
		succeeded   atomic.Int32
		maxVersion  atomic.Int32
		writing     sync.WaitGroup
		reading     sync.WaitGroup
		stop        atomic.Bool
	)
	for range 4 {
		reading.Go(func() {
			for !stop.Load() {
				text, version, ok := w.Buffer(path)
				if !ok || len(text) > int(version) {
					t.Errorf("Buffer = %q, %d, %v: more x's than versions", text, version, ok)
					return
				}
				if f, err := w.ReadFile(path); err != nil || !f.Open || len(f.Text) > int(f.Version) {
					t.Errorf("ReadFile = %+v, %v", f, err)
					return
				}
			}
		})
	}
	for range writers {
		writing.Go(func() {
			for range perWriter {
				v := nextVersion.Add(1)
				err := w.Change(path, v, []Change{{Range: rng(0, 0, 0, 0), Text: "x"}}, lspedit.UTF16)
				switch {
				case err == nil:
					succeeded.Add(1)
					for m := maxVersion.Load(); v > m && !maxVersion.CompareAndSwap(m, v); m = maxVersion.Load() {
					}
				case !errors.Is(err, ErrVersion):
					t.Errorf("Change(%d) = %v", v, err)
				}
			}
		})
	}
	writing.Wait()
	stop.Store(true)
	reading.Wait()

	want := bufferState{strings.Repeat("x", int(succeeded.Load())), maxVersion.Load(), true}
	if diff := cmp.Diff(want, bufferOf(w, path)); diff != "" {
		t.Errorf("final buffer (-want +got):\n%s", diff)
	}
}

func ExampleWorkspace_Change() {
	w, _ := New(".")
	path := filepath.Join(w.Roots()[0], "hello.txt")
	w.Open(path, "héllo 😀 world", 1)
	// Positions count UTF-16 units: é is one, 😀 two.
	_ = w.Change(path, 2, []Change{
		{Range: rng(0, 6, 0, 8), Text: "big"}, // replaces 😀
		{Range: rng(0, 0, 0, 1), Text: "H"},   // against the text left by the first
	}, lspedit.UTF16)
	text, version, _ := w.Buffer(path)
	fmt.Println(text, version)
	// Output: Héllo big world 2
}

func TestBufferIs(t *testing.T) {
	t.Parallel()
	w, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Roots()[0], "a.txt")
	if _, open, same := w.BufferIs(path, ""); open || same {
		t.Errorf("a file not open: open %v, same %v", open, same)
	}
	w.Open(path, "one\ntwo\n", 3)
	for _, tt := range []struct {
		want string
		same bool
	}{{"one\ntwo\n", true}, {"one\ntwo", false}, {"one\ntwx\n", false}, {"", false}} {
		if v, open, same := w.BufferIs(path, tt.want); v != 3 || !open || same != tt.same {
			t.Errorf("BufferIs(%q) = %d, %v, %v; want 3, true, %v", tt.want, v, open, same, tt.same)
		}
	}
}
