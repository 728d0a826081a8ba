package lspedit

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/rope"
)

func pos(line, char uint32) protocol.Position { return protocol.Position{Line: line, Character: char} }

// mixed has é (2 bytes, 1 UTF-16 unit), 日本 (3 bytes, 1 unit each) and 😀
// (4 bytes, 2 UTF-16 units, 1 code point), then a CRLF line and a lone CR line.
const mixed = "é日本😀x\r\nab\rc"

func TestEncoding(t *testing.T) {
	t.Parallel()
	tests := []struct {
		kind protocol.PositionEncodingKind
		want Encoding
		back protocol.PositionEncodingKind
	}{
		{protocol.PositionEncodingKindUTF8, UTF8, "utf-8"},
		{protocol.PositionEncodingKindUTF16, UTF16, "utf-16"},
		{protocol.PositionEncodingKindUTF32, UTF32, "utf-32"},
		{"", UTF16, "utf-16"},
		{"latin-1", UTF16, "utf-16"},
	}
	for _, tt := range tests {
		if got := ParseEncoding(tt.kind); got != tt.want || got.Kind() != tt.back {
			t.Errorf("ParseEncoding(%q) = %v (kind %q), want %v (kind %q)", tt.kind, got, got.Kind(), tt.want, tt.back)
		}
	}
}

func TestMapperLineCount(t *testing.T) {
	t.Parallel()
	tests := []struct {
		text string
		want int
	}{
		{"", 1}, {"a", 1}, {"a\n", 2}, {"a\r\nb", 2}, {"a\rb\nc", 3}, {"\r\r\n\n", 4}, {"\n\r", 3},
	}
	for _, tt := range tests {
		if got := NewMapper(tt.text).LineCount(); got != tt.want {
			t.Errorf("LineCount(%q) = %d, want %d", tt.text, got, tt.want)
		}
	}
}

func TestOffsetPosition(t *testing.T) {
	t.Parallel()
	// Offsets in mixed: é 0, 日 2, 本 5, 😀 8, x 12, \r 13, \n 14, a 15, b 16, \r 17, c 18, end 19.
	tests := []struct {
		name   string
		text   string
		offset int
		want   [3]protocol.Position // UTF16, UTF8, UTF32
		err    bool
	}{
		{"start", mixed, 0, [3]protocol.Position{pos(0, 0), pos(0, 0), pos(0, 0)}, false},
		{"after é", mixed, 2, [3]protocol.Position{pos(0, 1), pos(0, 2), pos(0, 1)}, false},
		{"before emoji", mixed, 8, [3]protocol.Position{pos(0, 3), pos(0, 8), pos(0, 3)}, false},
		{"after emoji", mixed, 12, [3]protocol.Position{pos(0, 5), pos(0, 12), pos(0, 4)}, false},
		{"line end before crlf", mixed, 13, [3]protocol.Position{pos(0, 6), pos(0, 13), pos(0, 5)}, false},
		{"after crlf", mixed, 15, [3]protocol.Position{pos(1, 0), pos(1, 0), pos(1, 0)}, false},
		{"before lone cr", mixed, 17, [3]protocol.Position{pos(1, 2), pos(1, 2), pos(1, 2)}, false},
		{"after lone cr", mixed, 18, [3]protocol.Position{pos(2, 0), pos(2, 0), pos(2, 0)}, false},
		{"end of text", mixed, 19, [3]protocol.Position{pos(2, 1), pos(2, 1), pos(2, 1)}, false},
		{"end after newline", "a\n", 2, [3]protocol.Position{pos(1, 0), pos(1, 0), pos(1, 0)}, false},
		{"empty text", "", 0, [3]protocol.Position{pos(0, 0), pos(0, 0), pos(0, 0)}, false},
		{"invalid bytes count one each", "\xff\xfex", 2, [3]protocol.Position{pos(0, 2), pos(0, 2), pos(0, 2)}, false},
		{"truncated sequence", "\xe6\x97x", 1, [3]protocol.Position{pos(0, 1), pos(0, 1), pos(0, 1)}, false},
		{"inside é", mixed, 1, [3]protocol.Position{}, true},
		{"inside emoji", mixed, 10, [3]protocol.Position{}, true},
		{"between cr and lf", mixed, 14, [3]protocol.Position{}, true},
		{"past end", mixed, 20, [3]protocol.Position{}, true},
		{"negative", mixed, -1, [3]protocol.Position{}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := NewMapper(tt.text)
			for i, enc := range []Encoding{UTF16, UTF8, UTF32} {
				got, err := m.OffsetPosition(tt.offset, enc)
				if tt.err {
					if !errors.Is(err, ErrPosition) {
						t.Errorf("%v: OffsetPosition(%d) = %v, %v; want ErrPosition", enc, tt.offset, got, err)
					}
					continue
				}
				if err != nil {
					t.Fatalf("%v: OffsetPosition(%d): %v", enc, tt.offset, err)
				}
				if diff := cmp.Diff(tt.want[i], got); diff != "" {
					t.Errorf("%v: OffsetPosition(%d) mismatch (-want +got):\n%s", enc, tt.offset, diff)
				}
			}
		})
	}
}

func TestPositionOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		text string
		pos  protocol.Position
		enc  Encoding
		want int
		err  bool
	}{
		{"utf16 after emoji", mixed, pos(0, 5), UTF16, 12, false},
		{"utf16 before emoji", mixed, pos(0, 3), UTF16, 8, false},
		{"utf16 inside surrogate pair", mixed, pos(0, 4), UTF16, 0, true},
		{"utf32 after emoji", mixed, pos(0, 4), UTF32, 12, false},
		{"utf8 after emoji", mixed, pos(0, 12), UTF8, 12, false},
		{"utf8 inside emoji", mixed, pos(0, 9), UTF8, 0, true},
		{"utf8 inside é", mixed, pos(0, 1), UTF8, 0, true},
		{"spec example a𐐀b", "a𐐀b", pos(0, 3), UTF16, 5, false},
		{"character past line end clamps", mixed, pos(0, 99), UTF16, 13, false},
		{"utf8 past line end clamps", mixed, pos(0, 99), UTF8, 13, false},
		{"clamps before lone cr", mixed, pos(1, 9), UTF32, 17, false},
		{"last line clamps to end", mixed, pos(2, 9), UTF16, 19, false},
		{"end of document", mixed, pos(3, 0), UTF16, 19, false},
		{"end of document after newline", "a\n", pos(2, 0), UTF16, 2, false},
		{"empty last line", "a\n", pos(1, 0), UTF16, 2, false},
		{"empty text", "", pos(0, 0), UTF16, 0, false},
		{"empty text end of document", "", pos(1, 0), UTF16, 0, false},
		{"past end of document", mixed, pos(3, 1), UTF16, 0, true},
		{"line past end", mixed, pos(4, 0), UTF16, 0, true},
		{"invalid byte is one unit", "\xffx", pos(0, 1), UTF16, 1, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := NewMapper(tt.text).PositionOffset(tt.pos, tt.enc)
			if tt.err {
				if !errors.Is(err, ErrPosition) {
					t.Errorf("PositionOffset(%v) = %d, %v; want ErrPosition", tt.pos, got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("PositionOffset(%v): %v", tt.pos, err)
			}
			if got != tt.want {
				t.Errorf("PositionOffset(%v) = %d, want %d", tt.pos, got, tt.want)
			}
		})
	}
}

func TestRangeOffsets(t *testing.T) {
	t.Parallel()
	m := NewMapper(mixed)
	start, end, err := m.RangeOffsets(protocol.Range{Start: pos(0, 3), End: pos(1, 1)}, UTF16)
	if err != nil || start != 8 || end != 16 {
		t.Errorf("RangeOffsets = %d, %d, %v; want 8, 16, nil", start, end, err)
	}
	if _, _, err := m.RangeOffsets(protocol.Range{Start: pos(1, 0), End: pos(0, 0)}, UTF16); !errors.Is(err, ErrPosition) {
		t.Errorf("RangeOffsets with start after end: error %v, want ErrPosition", err)
	}
	if _, _, err := m.RangeOffsets(protocol.Range{Start: pos(0, 0), End: pos(0, 4)}, UTF16); !errors.Is(err, ErrPosition) {
		t.Errorf("RangeOffsets ending inside a surrogate pair: error %v, want ErrPosition", err)
	}
}

// naivePosition is the reference: it walks the whole text.
func naivePosition(text string, offset int, enc Encoding) protocol.Position {
	var p protocol.Position
	for i := 0; i < offset; {
		switch {
		case text[i] == '\r' && i+1 < len(text) && text[i+1] == '\n':
			p.Line, p.Character, i = p.Line+1, 0, i+2
		case text[i] == '\r' || text[i] == '\n':
			p.Line, p.Character, i = p.Line+1, 0, i+1
		default:
			r, size := utf8.DecodeRuneInString(text[i:])
			p.Character += uint32(enc.width(r, size))
			i += size
		}
	}
	return p
}

func FuzzMapper(f *testing.F) {
	for _, s := range []string{"", "a", mixed, "a\n", "a\r\n\r\n", "\r\r\n\n", "😀\n𐐀b", "\xff\xe6\x97\xa5\xe6\x97"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkMapper(t, NewMapper(text), text)
		checkMapper(t, NewLinesMapper(rope.New(text)), text)
	})
}

// TestRopeMapper checks a Mapper over a rope of many leaves, after edits,
// against the naive positions.
func TestRopeMapper(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; b.Len() < 40_000; i++ {
		b.WriteString([]string{"abc", "日本", "😀", "\r\n", "\n", "\r", "x\xff", "𐐀"}[i*7%8])
	}
	text := b.String()
	r := rope.New(text)
	for i := range 200 {
		at := (i * 7919) % (len(text) - 10)
		for !utf8.RuneStart(text[at]) || at > 0 && text[at-1] == '\r' && text[at] == '\n' {
			at++
		}
		ins := []string{"\r", "\n", "é", "z"}[i%4]
		r = r.Replace(at, at, ins)
		text = text[:at] + ins + text[at:]
	}
	// The string's Mapper is the reference here (FuzzMapper checks it
	// against the naive walk, which is too slow for 40 KB).
	want, got := NewMapper(text), NewLinesMapper(r)
	if got.LineCount() != want.LineCount() {
		t.Fatalf("LineCount %d, want %d", got.LineCount(), want.LineCount())
	}
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		for offset := 0; offset <= len(text); offset++ {
			wp, werr := want.OffsetPosition(offset, enc)
			gp, gerr := got.OffsetPosition(offset, enc)
			if wp != gp || (werr == nil) != (gerr == nil) {
				t.Fatalf("%v: OffsetPosition(%d) = %v, %v; want %v, %v", enc, offset, gp, gerr, wp, werr)
			}
			if werr != nil {
				continue
			}
			for _, p := range []protocol.Position{wp, {Line: wp.Line, Character: wp.Character + 1}, {Line: wp.Line, Character: wp.Character + 1000}} {
				wo, werr := want.PositionOffset(p, enc)
				go_, gerr := got.PositionOffset(p, enc)
				if wo != go_ || (werr == nil) != (gerr == nil) {
					t.Fatalf("%v: PositionOffset(%v) = %d, %v; want %d, %v", enc, p, go_, gerr, wo, werr)
				}
			}
		}
	}
}

func checkMapper(t *testing.T, m *Mapper, text string) {
	t.Helper()
	{
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			// Walk rune by rune, as Go's range loop does; every rune start
			// and the end of the text is a valid offset, except the "\n" of
			// a "\r\n".
			for offset := 0; offset <= len(text); {
				p, err := m.OffsetPosition(offset, enc)
				inCRLF := offset > 0 && offset < len(text) && text[offset-1] == '\r' && text[offset] == '\n'
				switch {
				case inCRLF && !errors.Is(err, ErrPosition):
					t.Fatalf("%v: OffsetPosition(%d) inside \\r\\n = %v, %v; want ErrPosition", enc, offset, p, err)
				case !inCRLF && err != nil:
					t.Fatalf("%v: OffsetPosition(%d): %v", enc, offset, err)
				case !inCRLF:
					if want := naivePosition(text, offset, enc); p != want {
						t.Fatalf("%v: OffsetPosition(%d) = %v, want %v", enc, offset, p, want)
					}
					back, err := m.PositionOffset(p, enc)
					if err != nil || back != offset {
						t.Fatalf("%v: PositionOffset(OffsetPosition(%d) = %v) = %d, %v", enc, offset, p, back, err)
					}
				}
				if offset == len(text) {
					break
				}
				_, size := utf8.DecodeRuneInString(text[offset:])
				for k := 1; k < size; k++ {
					if _, err := m.OffsetPosition(offset+k, enc); !errors.Is(err, ErrPosition) {
						t.Fatalf("%v: OffsetPosition(%d) inside a rune: error %v, want ErrPosition", enc, offset+k, err)
					}
				}
				offset += size
			}
		}
	}
}
