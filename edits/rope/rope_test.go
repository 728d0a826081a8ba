package rope

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveLines returns the line starts of text: 0, then after every "\n",
// "\r\n" and lone "\r".
func naiveLines(text string) []int {
	starts := []int{0}
	for i := 0; i < len(text); i++ {
		switch {
		case text[i] == '\n':
			starts = append(starts, i+1)
		case text[i] == '\r' && (i+1 == len(text) || text[i+1] != '\n'):
			starts = append(starts, i+1)
		}
	}
	return starts
}

// check compares every answer of r with the naive ones for text, and the
// tree's invariants.
func check(t *testing.T, r Rope, text string) {
	t.Helper()
	if got := r.String(); got != text {
		t.Fatalf("String() = %q, want %q", got, text)
	}
	if r.Len() != len(text) || !r.Equal(text) || (len(text) > 0 && r.Equal(text[:len(text)-1]+string(text[len(text)-1]^1))) {
		t.Fatalf("Len %d, Equal wrong for %q", r.Len(), text)
	}
	starts := naiveLines(text)
	if r.LineCount() != len(starts) {
		t.Fatalf("LineCount() = %d, want %d for %q", r.LineCount(), len(starts), text)
	}
	for i, s := range starts {
		if got := r.LineStart(i); got != s {
			t.Fatalf("LineStart(%d) = %d, want %d in %q", i, got, s, text)
		}
		end := len(text)
		if i+1 < len(starts) {
			end = starts[i+1] - 1
			if end > s && text[end] == '\n' && text[end-1] == '\r' {
				end--
			}
		}
		if gs, ge := r.Line(i); gs != s || ge != end {
			t.Fatalf("Line(%d) = %d, %d, want %d, %d in %q", i, gs, ge, s, end, text)
		}
	}
	line := 0
	for off := 0; off <= len(text); off++ {
		for line+1 < len(starts) && starts[line+1] <= off {
			line++
		}
		if got := r.LineOf(off); got != line {
			t.Fatalf("LineOf(%d) = %d, want %d in %q", off, got, line, text)
		}
		if off < len(text) && r.ByteAt(off) != text[off] {
			t.Fatalf("ByteAt(%d)", off)
		}
	}
	for range 20 {
		a := rand.IntN(len(text) + 1)
		b := a + rand.IntN(len(text)-a+1)
		if got := r.Slice(a, b); got != text[a:b] {
			t.Fatalf("Slice(%d, %d) = %q, want %q", a, b, got, text[a:b])
		}
	}
	if got := string(r.AppendTo([]byte("x"))); got != "x"+text {
		t.Fatalf("AppendTo = %q", got)
	}
	if r.root != nil {
		checkNode(t, r.root)
	}
}

// checkNode checks the invariants of the tree below n.
func checkNode(t *testing.T, n *node) {
	t.Helper()
	if n.isLeaf() {
		if n.size != len(n.leaf) || n.size == 0 || n.size > maxLeaf || n.breaks != countBreaks(n.leaf) || n.height != 1 {
			t.Fatalf("bad leaf %+v", n)
		}
		return
	}
	checkNode(t, n.left)
	checkNode(t, n.right)
	want := newInner(n.left, n.right)
	if *want != *n {
		t.Fatalf("inner node %+v, want %+v", n, want)
	}
	if d := n.left.height - n.right.height; d < -1 || d > 1 {
		t.Fatalf("unbalanced: heights %d and %d", n.left.height, n.right.height)
	}
}

// pieces are what random edits insert: line breaks of every kind, split
// "\r\n"s, multi-byte characters.
var pieces = []string{"a", "bc", "\n", "\r", "\r\n", "\n\r", "é", "日本", "😀", "xyz\n", "\r\r\n\n", strings.Repeat("long line ", 300) + "\n"}

func randomText(rng *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(pieces[rng.IntN(len(pieces))])
	}
	return b.String()
}

func TestRopeSmall(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "a", "\n", "\r", "\r\n", "a\r", "\ra", "a\nb\r\nc\rd", "\r\n\r\n", "\n\r\n\r"} {
		check(t, New(text), text)
	}
}

// TestRopeEdits applies thousands of random edits to a rope and to a
// string, and compares them after each.
func TestRopeEdits(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(13, 20))
	for _, size := range []int{0, 100, 10_000} {
		text := randomText(rng, size)
		r := New(text)
		check(t, r, text)
		for i := range 400 {
			start := rng.IntN(len(text) + 1)
			end := start + rng.IntN(min(len(text)-start, 50)+1)
			if i%50 == 49 {
				end = start + rng.IntN(len(text)-start+1) // a large deletion now and then
			}
			ins := ""
			if rng.IntN(4) > 0 {
				ins = randomText(rng, rng.IntN(20))
			}
			old := r
			r = r.Replace(start, end, ins)
			text = text[:start] + ins + text[end:]
			if i%25 == 0 || len(text) < 2000 {
				check(t, r, text)
			}
			if old.Len() != len(text)-len(ins)+(end-start) {
				t.Fatal("the old rope changed")
			}
		}
		check(t, r, text)
	}
}

// TestRopeTyping types a long text one character at a time in the middle,
// as an editor sends it: the leaves must not crumble.
func TestRopeTyping(t *testing.T) {
	t.Parallel()
	text := strings.Repeat("0123456789abcdef\n", 4096) // 68 KiB
	r := New(text)
	at := len(text) / 2
	for i := range 20_000 {
		c := string(rune('a' + i%26))
		r = r.Replace(at, at, c)
		text = text[:at] + c + text[at:]
		at++
	}
	check(t, r, text)
	leaves := 0
	var count func(n *node)
	count = func(n *node) {
		if n.isLeaf() {
			leaves++
			return
		}
		count(n.left)
		count(n.right)
	}
	count(r.root)
	if most := 2*len(text)/minLeaf + 2; leaves > most {
		t.Errorf("%d leaves for %d bytes, want at most %d", leaves, len(text), most)
	}
}

// FuzzRope applies the edits the fuzzer makes up to a rope and a string.
func FuzzRope(f *testing.F) {
	f.Add("hello\r\nworld\n", []byte{3, 5, 2, 0, 1, 4})
	f.Add("", []byte{0, 0, 10, 11})
	f.Add("a\rb\nc\r\n", []byte{1, 2, 3, 4, 5, 6, 7, 8, 9})
	f.Fuzz(func(t *testing.T, text string, ops []byte) {
		// Grown past two leaves, so that edits meet leaf boundaries.
		if text != "" {
			for len(text) < 2*maxLeaf+100 {
				text += text
			}
		}
		r := New(text)
		for len(ops) >= 3 {
			// Offsets anywhere in the text, and near the leaf boundaries.
			start := (int(ops[0])*997 + int(ops[0]&1)*(maxLeaf-128)) % (len(text) + 1)
			end := start + int(ops[1])%(len(text)-start+1)
			ins := pieces[int(ops[2])%len(pieces)]
			if ops[2]&0x80 != 0 {
				ins = ""
			}
			r = r.Replace(start, end, ins)
			text = text[:start] + ins + text[end:]
			ops = ops[3:]
		}
		check(t, r, text)
	})
}
