package workspace

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
)

// naivePos is the UTF-16 position of offset in text, walking from the start.
func naivePos(text string, offset int) protocol.Position {
	var p protocol.Position
	for i := 0; i < offset; {
		switch {
		case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
			p.Line, p.Character, i = p.Line+1, 0, i+2
		case text[i] == '\r' || text[i] == '\n':
			p.Line, p.Character, i = p.Line+1, 0, i+1
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			p.Character += uint32(len(utf16Units(r)))
			i += size
		}
	}
	return p
}

func utf16Units(r rune) []struct{} {
	if r >= 0x10000 {
		return make([]struct{}, 2)
	}
	return make([]struct{}, 1)
}

// point returns a random offset of text where an edit may start or end: a
// rune start, not inside a "\r\n".
func point(rng *rand.Rand, text string) int {
	at := rng.IntN(len(text) + 1)
	for at < len(text) && (!utf8.RuneStart(text[at]) || at > 0 && text[at-1] == '\r' && text[at] == '\n') {
		at++
	}
	return at
}

// TestChangeManyEdits applies 3,000 random incremental changes, in UTF-16
// positions, to a document of several rope leaves, and compares the buffer
// with splicing a plain string.
func TestChangeManyEdits(t *testing.T) {
	t.Parallel()
	w, root := newWorkspace(t)
	path := filepath.Join(root, "big.txt")
	rng := rand.New(rand.NewPCG(3, 11))
	words := []string{"func", " ", "\n", "\r\n", "\r", "日本", "😀", "é", "x := 1\n", "\t"}
	var b strings.Builder
	for b.Len() < 40_000 {
		b.WriteString(words[rng.IntN(len(words))])
	}
	text := b.String()
	w.Open(path, text, 1)
	for i := range 3000 {
		start := point(rng, text)
		end := start
		if rng.IntN(3) == 0 {
			end = point(rng, text[start:]) + start
		}
		ins := ""
		for range rng.IntN(4) {
			ins += words[rng.IntN(len(words))]
		}
		r := protocol.Range{Start: naivePos(text, start), End: naivePos(text, end)}
		if err := w.Change(path, int32(i+2), []Change{{Range: &r, Text: ins}}, lspedit.UTF16); err != nil {
			t.Fatalf("change %d %v: %v", i, r, err)
		}
		text = text[:start] + ins + text[end:]
		if i%500 == 0 {
			if got, _, _ := w.Buffer(path); got != text {
				t.Fatalf("after change %d: buffer differs", i)
			}
		}
	}
	got, version, _ := w.Buffer(path)
	if got != text || version != 3001 {
		t.Errorf("buffer differs (version %d)", version)
	}
	buf, _, err := w.AppendFile(nil, path, 1<<30)
	if err != nil || string(buf) != text {
		t.Errorf("AppendFile differs: %v", err)
	}
}

// bigDoc is a document of about size bytes in lines of Go-like code.
func bigDoc(size int) string {
	var b strings.Builder
	b.Grow(size + 100)
	for line := 0; b.Len() < size; line++ {
		fmt.Fprintf(&b, "\tv%d := compute(%d, %q) // line %d\n", line, line*7, "日本", line)
	}
	return strings.Clone(b.String())
}

var docSizes = []int{1 << 20, 10 << 20, 50 << 20, 200 << 20}

// BenchmarkChange is one keystroke, a character typed in the middle of a
// document, at each size: the overlay's rope, and the anchor, the string
// the overlay kept before (a line table and a copy per change). ns/op is a
// change; it should not grow with the size.
func BenchmarkChange(b *testing.B) {
	for _, size := range docSizes {
		text := bigDoc(size)
		lines := strings.Count(text, "\n")
		b.Run(fmt.Sprintf("rope/MB=%d", size>>20), func(b *testing.B) {
			w, err := New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(w.Roots()[0], "big.go")
			w.Open(path, text, 1)
			version := int32(1)
			b.ReportAllocs()
			for b.Loop() {
				version++
				line := uint32(lines/2 + int(version)%1000)
				r := protocol.Range{Start: protocol.Position{Line: line, Character: 5}, End: protocol.Position{Line: line, Character: 5}}
				if err := w.Change(path, version, []Change{{Range: &r, Text: "x"}}, lspedit.UTF16); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("string/MB=%d", size>>20), func(b *testing.B) {
			if size > 50<<20 && testing.Short() {
				b.Skip("slow")
			}
			doc := text
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				i++
				line := uint32(lines/2 + i%1000)
				r := protocol.Range{Start: protocol.Position{Line: line, Character: 5}, End: protocol.Position{Line: line, Character: 5}}
				start, end, err := lspedit.NewMapper(doc).RangeOffsets(r, lspedit.UTF16)
				if err != nil {
					b.Fatal(err)
				}
				doc = doc[:start] + "x" + doc[end:]
			}
		})
	}
}

// BenchmarkOpenBig opens one document of each size: ns/op is the overlay's
// cost of a didOpen (the text comes decoded from the wire), heap-B/B the
// live heap it keeps per byte of text, the text included.
func BenchmarkOpenBig(b *testing.B) {
	for _, size := range docSizes {
		b.Run(fmt.Sprintf("MB=%d", size>>20), func(b *testing.B) {
			text := bigDoc(size)
			w, err := New(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(w.Roots()[0], "big.go")
			for b.Loop() {
				w.Open(path, text, 1)
			}
			w.Close(path)
			before := liveHeap()
			w.Open(path, text, 1)
			after := liveHeap()
			runtime.KeepAlive(text)
			runtime.KeepAlive(w)
			b.ReportMetric((float64(after)-float64(before)+float64(len(text)))/float64(len(text)), "heap-B/B")
		})
	}
}
