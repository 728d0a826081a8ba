package workspace

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
)

// FuzzChange checks Change against byte splicing on a plain string. ops is
// read four bytes at a time: kind, two offsets and an insertion; kind decides
// between a range edit, a whole replace, a deliberately bad range, and the
// end of one didChange notification. After a bad range the buffer is out of
// sync until a notification replaces the whole text.
func FuzzChange(f *testing.F) {
	f.Add("héllo\n日本語\n😀x\n", []byte{0, 1, 3, 2, 1, 9, 9, 4, 3, 0, 0, 0, 0, 200, 7, 1})
	f.Add("", []byte{0, 0, 0, 4, 0, 0, 0, 1, 3, 0, 0, 0})
	f.Add("a\nb\nc", []byte{2, 0, 255, 5, 4, 1, 1, 1, 3, 0, 0, 0, 0, 3, 4, 6})
	w, err := New(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	path := filepath.Join(w.Roots()[0], "f.txt")
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		// No "\r": a lone one is a line break to LSP, and the reference
		// below splits lines at "\n" only. The edits package tests "\r".
		text = strings.ToValidUTF8(strings.ReplaceAll(text, "\r", ""), "?")
		inserts := []string{"", "a", "\n", "é", "日本", "😀", "x\ny", "\n\n"}

		w.Open(path, text, 0) // replaces the last run's buffer
		var (
			version       int32
			want, pending = text, text // pending: want with the batch so far
			batch         []Change
			batchBad      bool // a bad range in the batch
			badAfterWhole bool // a bad range after the batch's last whole replace
			whole         bool // the batch replaces the whole text
			unsynced      bool // a batch failed: the buffer is out of sync
			changeCalls   int
		)
		flush := func() {
			version++
			err := w.Change(path, version, batch, lspedit.UTF8)
			changeCalls++
			var wantErr error
			switch {
			case unsynced && !whole:
				wantErr = ErrOutOfSync
			case unsynced && badAfterWhole, !unsynced && batchBad:
				// An out-of-sync buffer takes the changes from the last
				// whole replace on.
				wantErr = lspedit.ErrPosition
			}
			if wantErr != nil {
				if !errors.Is(err, wantErr) {
					t.Fatalf("Change %d = %v, want %v", changeCalls, err, wantErr)
				}
				version-- // the buffer kept the old version
				pending = want
				unsynced = true
			} else {
				if err != nil {
					t.Fatalf("Change %d = %v", changeCalls, err)
				}
				want = pending
				unsynced = false
			}
			if got, _, _ := w.Buffer(path); got != want {
				t.Fatalf("after Change %d: buffer = %q, want %q", changeCalls, got, want)
			}
			if f, err := w.ReadFile(path); unsynced != errors.Is(err, ErrOutOfSync) || !unsynced && f.Text != want {
				t.Fatalf("after Change %d: ReadFile = %q, %v; out of sync: %v", changeCalls, f.Text, err, unsynced)
			}
			batch, batchBad, badAfterWhole, whole = nil, false, false, false
		}
		for i := 0; i+4 <= len(ops); i += 4 {
			kind, a, b, ins := ops[i]%8, int(ops[i+1]), int(ops[i+2]), inserts[int(ops[i+3])%len(inserts)]
			switch kind {
			case 6:
				batch = append(batch, Change{Text: ins + pending})
				pending = ins + pending
				whole, badAfterWhole = true, false
			case 7:
				lines := uint32(strings.Count(pending, "\n"))
				batch = append(batch, Change{Range: rng(lines+2, 0, lines+2, 0), Text: ins})
				batchBad, badAfterWhole = true, true
			case 5:
				flush()
			default:
				start, end := runeStart(pending, a*len(pending)/255), runeStart(pending, b*len(pending)/255)
				if start > end {
					start, end = end, start
				}
				batch = append(batch, Change{Range: byteRange(pending, start, end), Text: ins})
				pending = pending[:start] + ins + pending[end:]
			}
		}
		flush()
	})
}

// runeStart moves offset i of the valid UTF-8 text back to a rune start.
func runeStart(text string, i int) int {
	for i > 0 && i < len(text) && !utf8.RuneStart(text[i]) {
		i--
	}
	return i
}

// byteRange returns the UTF-8 range of text[start:end], lines split at "\n".
func byteRange(text string, start, end int) *protocol.Range {
	pos := func(off int) protocol.Position {
		line := strings.Count(text[:off], "\n")
		col := off - (strings.LastIndexByte(text[:off], '\n') + 1)
		return protocol.Position{Line: uint32(line), Character: uint32(col)}
	}
	return &protocol.Range{Start: pos(start), End: pos(end)}
}
