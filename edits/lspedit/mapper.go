package lspedit

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/edits"
	"go.lsp.dev/protocol"
)

// Mapper converts between byte offsets and positions of one text.
// It indexes the line starts once; each conversion then costs a binary
// search plus a scan of one line. A Mapper is safe for concurrent use.
type Mapper struct {
	text string
	// Inv: lines[0] == 0, strictly increasing; lines[i] is the offset of the
	// first byte of line i. A line ends at "\n", "\r\n" or a lone "\r".
	lines []int
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
	return &Mapper{text: text, lines: lines}
}

// LineCount returns the number of lines of the text. A text that ends with a
// line break has an empty last line, so "a\n" has two lines.
func (m *Mapper) LineCount() int { return len(m.lines) }

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
	if offset < 0 || offset > len(m.text) {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is outside [0, %d]", ErrPosition, offset, len(m.text))
	}
	line := sort.Search(len(m.lines), func(i int) bool { return m.lines[i] > offset }) - 1
	start, end := m.lines[line], m.lineEnd(line)
	if offset > end {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is inside a \"\\r\\n\" line break", ErrPosition, offset)
	}
	if !edits.IsBoundary(m.text, offset) {
		return protocol.Position{}, fmt.Errorf("%w: offset %d is inside a UTF-8 sequence", ErrPosition, offset)
	}
	from, units := start, 0
	if c != nil && c.valid && c.enc == enc && c.line == line && c.offset <= offset {
		from, units = c.offset, c.units
	}
	if enc == UTF8 {
		units += offset - from
	} else {
		for i := from; i < offset; {
			r, size := utf8.DecodeRuneInString(m.text[i:offset])
			units += enc.width(r, size)
			i += size
		}
	}
	c.set(enc, line, offset, units)
	return protocol.Position{Line: uint32(line), Character: uint32(units)}, nil
}

func (m *Mapper) positionOffset(pos protocol.Position, enc Encoding, c *cursor) (int, error) {
	line := int(pos.Line)
	if line >= len(m.lines) {
		if line == len(m.lines) && pos.Character == 0 {
			return len(m.text), nil // the end of the text
		}
		return 0, fmt.Errorf("%w: %s is past the last line (%d lines)", ErrPosition, fmtPos(pos), len(m.lines))
	}
	start, end := m.lines[line], m.lineEnd(line)
	want := int(pos.Character)
	if enc == UTF8 {
		offset := end // clamp
		if want < end-start {
			offset = start + want
		}
		if !edits.IsBoundary(m.text, offset) {
			return 0, fmt.Errorf("%w: %s is inside a UTF-8 sequence", ErrPosition, fmtPos(pos))
		}
		return offset, nil
	}
	i, units := start, 0
	if c != nil && c.valid && c.enc == enc && c.line == line && c.units <= want {
		i, units = c.offset, c.units
	}
	for i < end && units < want {
		r, size := utf8.DecodeRuneInString(m.text[i:end])
		units += enc.width(r, size)
		i += size
	}
	if units > want {
		return 0, fmt.Errorf("%w: %s is inside a UTF-16 surrogate pair", ErrPosition, fmtPos(pos))
	}
	c.set(enc, line, i, units)
	return i, nil // i == end when the character was past the line end
}

// lineEnd returns the offset just after the content of line i, before its
// line break.
func (m *Mapper) lineEnd(i int) int {
	if i+1 == len(m.lines) {
		return len(m.text)
	}
	end := m.lines[i+1] - 1 // the last byte of the line break
	if m.text[end] == '\n' && end > m.lines[i] && m.text[end-1] == '\r' {
		end--
	}
	return end
}

func fmtPos(p protocol.Position) string { return fmt.Sprintf("%d:%d", p.Line, p.Character) }
