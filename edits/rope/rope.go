// Package rope holds Rope, an immutable text that takes small changes at a
// cost that does not grow with its size, and that knows its lines: the
// editor's buffers of open documents, which may be hundreds of megabytes
// and change at every keystroke.
//
// A Rope is a balanced binary tree (AVL) whose leaves are pieces of the
// text, at most 8 KiB each, slices of the text given to New where nothing
// has changed them. Every node counts the bytes and the line breaks below
// it, so that finding a line or an offset walks one path from the root. A
// change copies that path and shares the rest: the old Rope stays valid,
// and readers of an old version never see a new one.
//
// Vocabulary: an offset is a byte index into the text; a line break is
// "\n", "\r\n" or a lone "\r", as in LSP; line i starts after the i-th
// break (line 0 at offset 0), so a text of n breaks has n+1 lines.
package rope

import (
	"fmt"
	"strings"
)

const (
	// maxLeaf is the most bytes a leaf holds. A change copies at most two
	// leaves, so it bounds the copying a small change costs.
	maxLeaf = 8 << 10
	// minLeaf: a leaf shorter than this is joined to its neighbour when
	// they fit in one, so that many small changes do not leave the text in
	// crumbs.
	minLeaf = 2 << 10
)

// A Rope is an immutable text. The zero Rope is the empty text. Ropes are
// values: copying one is cheap and safe for concurrent use.
type Rope struct {
	root *node
}

// A node is a leaf (left and right nil) or the concatenation of its two
// children. Inv: nodes never change once made; an inner node has both
// children and |height(left) - height(right)| <= 1.
type node struct {
	left, right *node
	leaf        string // the text of a leaf
	size        int    // bytes below
	// breaks counts the line breaks below, a trailing "\r" included: it is
	// a break of its own unless the text after the node starts with "\n",
	// which only an ancestor knows (see effective).
	breaks  int
	firstLF bool // the text below starts with "\n"
	lastCR  bool // the text below ends with "\r"
	height  int8
}

// New returns the Rope of text. It slices text into leaves without copying
// it, so the Rope keeps text alive.
func New(text string) Rope {
	if text == "" {
		return Rope{}
	}
	leaves := make([]*node, 0, len(text)/maxLeaf+1)
	for len(text) > 0 {
		n := min(len(text), maxLeaf)
		leaves = append(leaves, newLeaf(text[:n]))
		text = text[n:]
	}
	return Rope{root: build(leaves)}
}

// build makes a balanced tree of leaves, in order.
func build(leaves []*node) *node {
	if len(leaves) == 1 {
		return leaves[0]
	}
	mid := len(leaves) / 2
	return newInner(build(leaves[:mid]), build(leaves[mid:]))
}

func newLeaf(s string) *node {
	return &node{leaf: s, size: len(s), breaks: countBreaks(s), firstLF: s != "" && s[0] == '\n', lastCR: s != "" && s[len(s)-1] == '\r', height: 1}
}

func newInner(l, r *node) *node {
	return &node{
		left: l, right: r,
		size:    l.size + r.size,
		breaks:  l.breaks + r.breaks - joined(l, r),
		firstLF: l.firstLF,
		lastCR:  r.lastCR,
		height:  max(l.height, r.height) + 1,
	}
}

// joined is 1 when a "\r" ending l and a "\n" starting r make one break,
// which l and r each counted.
func joined(l, r *node) int {
	if l.lastCR && r.firstLF {
		return 1
	}
	return 0
}

// effective is the number of breaks that end inside l when r follows it.
func effective(l, r *node) int { return l.breaks - joined(l, r) }

// countBreaks counts the line breaks of s, a trailing "\r" included.
func countBreaks(s string) int {
	n := strings.Count(s, "\n")
	if strings.IndexByte(s, '\r') < 0 {
		return n
	}
	for i := 0; i < len(s); i++ {
		if s[i] == '\r' && (i+1 == len(s) || s[i+1] != '\n') {
			n++
		}
	}
	return n
}

func height(n *node) int8 {
	if n == nil {
		return 0
	}
	return n.height
}

func (n *node) isLeaf() bool { return n.left == nil }

// Len returns the length of the text in bytes.
func (r Rope) Len() int {
	if r.root == nil {
		return 0
	}
	return r.root.size
}

// LineCount returns the number of lines: one more than the line breaks, so
// "a\n" has two lines, the second empty.
func (r Rope) LineCount() int {
	if r.root == nil {
		return 1
	}
	return r.root.breaks + 1
}

// String returns the whole text. It copies the text unless it is one leaf:
// callers that keep it should keep it once (see the overlay's cache).
func (r Rope) String() string {
	if r.root == nil {
		return ""
	}
	if r.root.isLeaf() {
		return r.root.leaf
	}
	var b strings.Builder
	b.Grow(r.root.size)
	r.root.each(0, r.root.size, func(s string) { b.WriteString(s) })
	return b.String()
}

// AppendTo appends the text to buf.
func (r Rope) AppendTo(buf []byte) []byte {
	if r.root == nil {
		return buf
	}
	if cap(buf)-len(buf) < r.root.size {
		grown := make([]byte, len(buf), len(buf)+r.root.size)
		copy(grown, buf)
		buf = grown
	}
	r.root.each(0, r.root.size, func(s string) { buf = append(buf, s...) })
	return buf
}

// Slice returns the text in [start, end); it panics if the range is not
// inside the text. Within one leaf it is a slice of it, not a copy.
func (r Rope) Slice(start, end int) string {
	if start < 0 || start > end || end > r.Len() {
		panic(fmt.Sprintf("rope: slice [%d, %d) of a text of %d bytes", start, end, r.Len()))
	}
	if start == end {
		return ""
	}
	var (
		one   string
		parts int
		b     strings.Builder
	)
	r.root.each(start, end, func(s string) {
		switch parts++; parts {
		case 1:
			one = s
			return
		case 2:
			b.Grow(end - start)
			b.WriteString(one)
		}
		b.WriteString(s)
	})
	if parts == 1 {
		return one
	}
	return b.String()
}

// each calls f with the pieces of the text in [start, end) of n, in order.
func (n *node) each(start, end int, f func(string)) {
	for {
		if start >= end {
			return
		}
		if n.isLeaf() {
			f(n.leaf[start:end])
			return
		}
		ls := n.left.size
		if start < ls {
			n.left.each(start, min(end, ls), f)
		}
		if end <= ls {
			return
		}
		// The right child's part, as a loop: the rest of the text.
		start, end, n = max(start-ls, 0), end-ls, n.right
	}
}

// ByteAt returns the byte at offset i; it panics if i is outside the text.
func (r Rope) ByteAt(i int) byte {
	if i < 0 || i >= r.Len() {
		panic(fmt.Sprintf("rope: byte %d of a text of %d bytes", i, r.Len()))
	}
	n := r.root
	for !n.isLeaf() {
		if i < n.left.size {
			n = n.left
		} else {
			i -= n.left.size
			n = n.right
		}
	}
	return n.leaf[i]
}

// Equal reports whether the text is s, without copying it.
func (r Rope) Equal(s string) bool {
	if r.Len() != len(s) {
		return false
	}
	if r.root == nil {
		return true
	}
	eq := true
	r.root.each(0, r.root.size, func(p string) {
		if eq {
			eq = p == s[:len(p)]
			s = s[len(p):]
		}
	})
	return eq
}
