package edits

import (
	"fmt"
	"strings"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
	"github.com/aymanbagabas/go-udiff/lcs"
)

// Edit replaces the bytes [Start, End) of the old text with New.
type Edit struct {
	Start, End int
	New        string
}

func (e Edit) String() string { return fmt.Sprintf("[%d,%d)%q", e.Start, e.End, e.New) }

// Compute returns edits that turn old into new: sorted, non-overlapping and
// small. No edit starts or ends inside a UTF-8 sequence or between the "\r"
// and "\n" of a line break in old, so every edit maps to an LSP range. Equal
// texts give nil.
//
// udiff bounds its search, and past that bound it gives up and replaces the
// whole middle of the text: 100 one-word changes scattered over a long file
// come back as about ten edits, one of them most of the file. So Compute
// diffs lines first, diffs again inside any replaced block that still holds
// unchanged lines, and only then diffs the characters of each changed block
// with udiff.Strings.
func Compute(old, new string) []Edit {
	if old == new {
		return nil
	}
	budget := maxLineWork * (strings.Count(old, "\n") + strings.Count(new, "\n") + 64)
	var es []Edit
	for _, block := range diffLines(old, new, 0, &budget, nil) {
		es = diffChars(old[block.Start:block.End], block.New, block.Start, es)
	}
	es, err := Normalize(old, es)
	if err != nil {
		panic(fmt.Sprintf("edits: diff produced invalid edits: %v", err)) // the diff guarantees order and bounds
	}
	return es
}

// maxLineWork caps the lines diffLines may read, as a multiple of the input
// lines, so texts with few scattered common lines stay linear.
const maxLineWork = 8

// diffLines appends to out the whole-line edits that turn old into new,
// with offsets shifted by base. It diffs each replaced block again while that
// makes progress and the budget (in lines read) lasts.
func diffLines(old, new string, base int, budget *int, out []Edit) []Edit {
	*budget -= strings.Count(old, "\n") + strings.Count(new, "\n") + 2
	for _, e := range udiff.Lines(old, new) {
		o := old[e.Start:e.End]
		whole := len(o) == len(old) && len(e.New) == len(new)
		if !whole && *budget > 0 && multiline(o) && multiline(e.New) {
			out = diffLines(o, e.New, base+e.Start, budget, out)
			continue
		}
		out = append(out, Edit{Start: base + e.Start, End: base + e.End, New: e.New})
	}
	return out
}

// multiline reports whether s has more than one line, so that a block
// replacing s might keep some line of it.
func multiline(s string) bool {
	i := strings.IndexByte(s, '\n')
	return i >= 0 && i < len(s)-1
}

// diffChars appends to out the character edits that turn old into new, with
// offsets shifted by base.
func diffChars(old, new string, base int, out []Edit) []Edit {
	if old == "" || new == "" {
		return append(out, Edit{Start: base, End: base + len(old), New: new})
	}
	if utf8.ValidString(old) && utf8.ValidString(new) {
		for _, e := range udiff.Strings(old, new) {
			out = append(out, Edit{Start: base + e.Start, End: base + e.End, New: e.New})
		}
		return out
	}
	// udiff.Strings decodes invalid bytes to U+FFFD and then counts them as
	// three bytes, so its offsets and New text would be wrong. Diff bytes
	// instead; Normalize moves the ends back to rune boundaries.
	for _, d := range lcs.DiffBytes([]byte(old), []byte(new)) {
		out = append(out, Edit{Start: base + d.Start, End: base + d.End, New: new[d.ReplStart:d.ReplEnd]})
	}
	return out
}

// Apply returns text with the edits applied. Edits must be sorted: each
// starts at or after the end of the one before (insertions at one offset
// apply in slice order), and all lie within text.
func Apply(text string, edits []Edit) (string, error) {
	size, err := check(text, edits)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.Grow(size)
	last := 0
	for _, e := range edits {
		b.WriteString(text[last:e.Start])
		b.WriteString(e.New)
		last = e.End
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

// check validates edits against text and returns the length of the result.
func check(text string, edits []Edit) (int, error) {
	size, last := len(text), 0
	for i, e := range edits {
		if e.Start < 0 || e.Start > e.End || e.End > len(text) {
			return 0, fmt.Errorf("%w: edit %d %v is out of bounds [0, %d]", ErrEdit, i, e, len(text))
		}
		if e.Start < last {
			return 0, fmt.Errorf("%w: edit %d %v starts before the end of edit %d %v", ErrEdit, i, e, i-1, edits[i-1])
		}
		size += len(e.New) - (e.End - e.Start)
		last = e.End
	}
	return size, nil
}

// Normalize validates edits against old and widens any edit whose start or
// end falls inside a UTF-8 sequence or a "\r\n" pair to the enclosing
// boundary, copying the bytes it takes in so the result is unchanged. Edits
// that would then overlap are merged. The input is not modified.
func Normalize(old string, edits []Edit) ([]Edit, error) {
	if _, err := check(old, edits); err != nil {
		return nil, err
	}
	// Fast path: nothing to widen.
	aligned := true
	for _, e := range edits {
		if !IsBoundary(old, e.Start) || !IsBoundary(old, e.End) {
			aligned = false
			break
		}
	}
	if aligned {
		return edits, nil
	}
	// Merge in original coordinates, then widen each merged edit once.
	// Inv: merged edits widen to disjoint, ordered ranges.
	merged := make([]Edit, 0, len(edits))
	for _, e := range edits {
		if n := len(merged); n > 0 {
			prev := &merged[n-1]
			if widenEnd(old, prev.End) > widenStart(old, e.Start) {
				prev.New += old[prev.End:e.Start] + e.New
				prev.End = e.End
				continue
			}
		}
		merged = append(merged, e)
	}
	for i, e := range merged {
		s, t := widenStart(old, e.Start), widenEnd(old, e.End)
		merged[i] = Edit{Start: s, End: t, New: old[s:e.Start] + e.New + old[e.End:t]}
	}
	return merged, nil
}

func widenStart(text string, i int) int {
	for !IsBoundary(text, i) {
		i--
	}
	return i
}

func widenEnd(text string, i int) int {
	for !IsBoundary(text, i) {
		i++
	}
	return i
}

// IsBoundary reports whether offset i of text is a point an edit may start or
// end at: not inside a UTF-8 sequence and not between "\r" and "\n". Runes
// are decoded as utf8.DecodeRuneInString does, so an invalid byte is a
// one-byte rune of its own.
func IsBoundary(text string, i int) bool {
	if i <= 0 || i >= len(text) {
		return true
	}
	if text[i-1] == '\r' && text[i] == '\n' {
		return false
	}
	if utf8.RuneStart(text[i]) {
		return true
	}
	// text[i] is a continuation byte. It is inside a rune only if the
	// nearest non-continuation byte before it starts a valid sequence that
	// reaches past i. Such a byte is always a rune start itself, because
	// valid sequences consume continuation bytes only.
	for p := i - 1; p >= 0 && p >= i-(utf8.UTFMax-1); p-- {
		if utf8.RuneStart(text[p]) {
			_, size := utf8.DecodeRuneInString(text[p:])
			return p+size <= i
		}
	}
	return true
}
