package rope

import "fmt"

// LineStart returns the offset where line i starts: 0 for line 0, else
// just after the i-th line break. It panics unless 0 <= i < LineCount.
func (r Rope) LineStart(i int) int {
	if i < 0 || i >= r.LineCount() {
		panic(fmt.Sprintf("rope: line %d of %d", i, r.LineCount()))
	}
	if i == 0 {
		return 0
	}
	// Find the end of break number i (1-based) below n. Going right skips
	// the breaks that end in the left child, given what follows it.
	n, base := r.root, 0
	for !n.isLeaf() {
		if e := effective(n.left, n.right); i <= e {
			n = n.left
		} else {
			i -= e
			base += n.left.size
			n = n.right
		}
	}
	return base + breakEnd(n.leaf, i)
}

// breakEnd returns the offset just after the i-th (1-based) line break of
// s. Inv: s has that break; a "\r" at the end of s is one, since the caller
// went left of a "\n" that would join it only when i was smaller.
func breakEnd(s string, i int) int {
	for j := 0; j < len(s); j++ {
		switch s[j] {
		case '\n':
		case '\r':
			if j+1 < len(s) && s[j+1] == '\n' {
				continue // the "\n" ends it
			}
		default:
			continue
		}
		if i--; i == 0 {
			return j + 1
		}
	}
	panic("rope: line index out of step with the text")
}

// LineOf returns the line that holds offset: the number of line breaks
// that end at or before it. An offset between the "\r" and "\n" of a break
// belongs to the line the break ends. It panics unless 0 <= offset <= Len.
func (r Rope) LineOf(offset int) int {
	if offset < 0 || offset > r.Len() {
		panic(fmt.Sprintf("rope: offset %d of a text of %d bytes", offset, r.Len()))
	}
	if offset == 0 {
		return 0
	}
	// Count the breaks ending in [1, offset], treating a "\r" just before
	// offset as a break; then take it back if a "\n" follows it.
	n, k, line := r.root, offset, 0
	for !n.isLeaf() {
		if k <= n.left.size {
			n = n.left
		} else {
			line += effective(n.left, n.right)
			k -= n.left.size
			n = n.right
		}
	}
	line += countBreaks(n.leaf[:k])
	if n.leaf[k-1] == '\r' && offset < r.Len() && r.ByteAt(offset) == '\n' {
		line--
	}
	return line
}

// Line returns the bounds of line i: its first byte, and the offset of its
// line break (the text's end for the last line). It panics unless
// 0 <= i < LineCount.
func (r Rope) Line(i int) (start, end int) {
	start = r.LineStart(i)
	if i+1 == r.LineCount() {
		return start, r.Len()
	}
	end = r.LineStart(i+1) - 1 // the last byte of the break
	if end > start && r.ByteAt(end) == '\n' && r.ByteAt(end-1) == '\r' {
		end--
	}
	return start, end
}
