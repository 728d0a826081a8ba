package lspedit

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/edits"
	"go.lsp.dev/protocol"
)

// Mapper converts between byte offsets and positions of one text. Each
// conversion finds the line (a binary search of the line starts, or a walk
// down a rope) and scans the line up to the point. A Mapper is safe for
// concurrent use.
type Mapper struct {
	l Lines
}

// Lines is a text and the index of its lines that a Mapper reads: a
// string's (NewMapper), or a rope.Rope, whose index changes with it
// (NewLinesMapper). A line ends at "\n", "\r\n" or a lone "\r".
type Lines interface {
	// Len is the text's length in bytes.
	Len() int
	// LineCount is the number of lines: one more than the line breaks.
	LineCount() int
	// LineOf is the line that holds offset (0 <= offset <= Len); an offset
	// inside a "\r\n" belongs to the line the break ends.
	LineOf(offset int) int
	// Line returns the bounds of line i: its first byte and the offset of
	// its break (Len for the last line).
	Line(i int) (start, end int)
	// Slice returns the text in [start, end).
	Slice(start, end int) string
}

// NewMapper indexes text.
func NewMapper(text string) *Mapper {
	lines := make([]int, 1, strings.Count(text, "\n")+2)
	next := func(s string) int { return strings.IndexAny(s, "\r\n") }
	if strings.IndexByte(text, '\r') < 0 {
		next = func(s string) int { return strings.IndexByte(s, '\n') } // IndexByte is vectorized; IndexAny is not
	}
	for i := 0; i < len(text); {
		j := next(text[i:])
		if j < 0 {
			break
		}
		i += j + 1
		if text[i-1] == '\r' && i < len(text) && text[i] == '\n' {
			i++
		}
		lines = append(lines, i)
	}
	return &Mapper{l: &stringLines{text: text, lines: lines}}
}

// NewLinesMapper maps the positions of l, which the Mapper reads at every
// conversion: it must not change.
func NewLinesMapper(l Lines) *Mapper { return &Mapper{l: l} }

// stringLines is the Lines of a string.
type stringLines struct {
	text string
	// Inv: lines[0] == 0, strictly increasing; lines[i] is the offset of the
	// first byte of line i.
	lines []int
}

func (s *stringLines) Len() int                    { return len(s.text) }
func (s *stringLines) LineCount() int              { return len(s.lines) }
func (s *stringLines) Slice(start, end int) string { return s.text[start:end] }

func (s *stringLines) LineOf(offset int) int {
	return sort.Search(len(s.lines), func(i int) bool { return s.lines[i] > offset }) - 1
}

func (s *stringLines) Line(i int) (start, end int) {
	if i+1 == len(s.lines) {
		return s.lines[i], len(s.text)
	}
	end = s.lines[i+1] - 1 // the last byte of the line break
	if s.text[end] == '\n' && end > s.lines[i] && s.text[end-1] == '\r' {
		end--
	}
	return s.lines[i], end
}

// LineCount returns the number of lines of the text. A text that ends with a
// line break has an empty last line, so "a\n" has two lines.
func (m *Mapper) LineCount() int { return m.l.LineCount() }

// OffsetPosition returns the position of the byte offset.
func (m *Mapper) OffsetPosition(offset int, enc Encoding) (protocol.Position, error) {
	return m.offsetPosition(offset, enc, nil)
}

// PositionOffset returns the byte offset of pos. A character past the end of
// its line means the line end, as the LSP specification requires; a line past
// the last one is an error, except (LineCount, 0), the end of the text.
func (m *Mapper) PositionOffset(pos protocol.Position, enc Encoding) (int, error) {
	return m.positionOffset(pos, enc, nil)
}

// RangeOffsets returns the byte offsets of r's start and end.
func (m *Mapper) RangeOffsets(r protocol.Range, enc Encoding) (start, end int, err error) {
	var c cursor
	return m.rangeOffsets(r, enc, &c)
}

func (m *Mapper) rangeOffsets(r protocol.Range, enc Encoding, c *cursor) (start, end int, err error) {
	if start, err = m.positionOffset(r.Start, enc, c); err != nil {
		return 0, 0, err
	}
	if end, err = m.positionOffset(r.End, enc, c); err != nil {
		return 0, 0, err
	}
	if start > end {
		return 0, 0, fmt.Errorf("%w: range start %s is after its end %s", ErrPosition, fmtPos(r.Start), fmtPos(r.End))
	}
	return start, end, nil
}

// A cursor remembers the last point converted so that a run of increasing
// conversions scans each line once instead of once per point. Edits on a long
// minified line would otherwise cost O(edits × line length).
type cursor struct {
	valid  bool
	enc    Encoding
	line   int
	offset int // Inv: a rune boundary on line, at units units from its start
	units  int
}

func (c *cursor) set(enc Encoding, line, offset, units int) {
	if c != nil {
		*c = cursor{valid: true, enc: enc, line: line, offset: offset, units: units}
	}
}

func (m *Mapper) offsetPosition(offset int, enc Encoding, c *cursor) (protocol.Position, error) {
	if offset < 0 || offset > m.l.Len() {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is outside [0, %d]", ErrPosition, offset, m.l.Len())
	}
	line := m.l.LineOf(offset)
	start, end := m.l.Line(line)
	if offset > end {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is inside a \"\\r\\n\" line break", ErrPosition, offset)
	}
	if !m.boundary(start, end, offset) {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is inside a UTF-8 sequence", ErrPosition, offset)
	}
	from, units := start, 0
	if c != nil && c.valid && c.enc == enc && c.line == line && c.offset <= offset {
		from, units = c.offset, c.units
	}
	if enc == UTF8 {
		units += offset - from
	} else {
		s := m.l.Slice(from, offset)
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRuneInString(s[i:])
			units += enc.width(r, size)
			i += size
		}
	}
	c.set(enc, line, offset, units)
	return protocol.Position{Line: uint32(line), Character: uint32(units)}, nil
}

func (m *Mapper) positionOffset(pos protocol.Position, enc Encoding, c *cursor) (int, error) {
	line, count := int(pos.Line), m.l.LineCount()
	if line >= count {
		if line == count && pos.Character == 0 {
			return m.l.Len(), nil // the end of the text
		}
		return 0, fmt.Errorf("%w: %s is past the last line (%d lines)", ErrPosition, fmtPos(pos), count)
	}
	start, end := m.l.Line(line)
	want := int(pos.Character)
	if enc == UTF8 {
		offset := end // clamp
		if want < end-start {
			offset = start + want
		}
		if !m.boundary(start, end, offset) {
			return 0, fmt.Errorf("%w: %s is inside a UTF-8 sequence", ErrPosition, fmtPos(pos))
		}
		return offset, nil
	}
	i, units := start, 0
	if c != nil && c.valid && c.enc == enc && c.line == line && c.units <= want {
		i, units = c.offset, c.units
	}
	// A unit is at most 4 bytes (a character past U+FFFF in UTF-32), so the
	// point is in the next 4 × (want − units) bytes; 3 more hold the rest of
	// the last character. Only that much of a long line is read.
	s := m.l.Slice(i, i+int(min(int64(end-i), 4*int64(want-units)+utf8.UTFMax-1)))
	j := 0
	for j < len(s) && units < want {
		r, size := utf8.DecodeRuneInString(s[j:])
		units += enc.width(r, size)
		j += size
	}
	i += j
	if units > want {
		return 0, fmt.Errorf("%w: %s is inside a UTF-16 surrogate pair", ErrPosition, fmtPos(pos))
	}
	c.set(enc, line, i, units)
	return i, nil // i == end when the character was past the line end
}

// boundary reports whether offset, on the line [start, end], is a point an
// edit may start or end at (see edits.IsBoundary). It reads only the bytes
// around offset: a line holds no line break.
func (m *Mapper) boundary(start, end, offset int) bool {
	lo, hi := max(start, offset-(utf8.UTFMax-1)), min(end, offset+utf8.UTFMax)
	return edits.IsBoundary(m.l.Slice(lo, hi), offset-lo)
}

func fmtPos(p protocol.Position) string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }
