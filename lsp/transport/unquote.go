package transport

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// unquoteInPlace decodes the JSON string literal whose contents s starts
// with (s begins just after its opening quote and runs on past its closing
// one) as json.Unmarshal decodes it into a string: escapes decoded, invalid
// UTF-8 and lone surrogates as U+FFFD. It returns the text and how many
// bytes of s the literal took, its closing quote included.
//
// The text is written over s itself, which escapes only shorten, and is
// s's prefix; an invalid UTF-8 byte, which U+FFFD lengthens, is written in
// place only while earlier escapes left room for it, and else the rest is
// decoded into a new slice, which is returned. It fails where
// json.Unmarshal fails (a control character, a bad escape, no closing
// quote), leaving s partly overwritten.
func unquoteInPlace(s []byte) (text []byte, n int, err error) {
	w, r := 0, 0 // Inv: w ≤ r; s[:w] is decoded, s[r:] is not read yet
	for {
		// Plain ASCII, eight bytes at a time, moved down as they are
		// read: a word written at w < r covers no byte after the word
		// just read.
		for r+8 <= len(s) {
			x := binary.LittleEndian.Uint64(s[r:])
			m := stops(x)
			if m == 0 {
				if w != r {
					binary.LittleEndian.PutUint64(s[w:], x)
				}
				w, r = w+8, r+8
				continue
			}
			// The first flagged byte is the first that stops the run.
			k := bits.TrailingZeros64(m) >> 3
			if w == r || r-w >= 8 {
				// The whole word: its bytes past k land before r.
				binary.LittleEndian.PutUint64(s[w:], x)
			} else {
				copy(s[w:w+k], s[r:r+k])
			}
			w, r = w+k, r+k
			break
		}
		if r == len(s) {
			return nil, 0, fmt.Errorf("a string does not end")
		}
		switch c := s[r]; {
		case c == '"':
			return s[:w], r + 1, nil
		case c == '\\':
			if r+1 < len(s) {
				if d := unescaped[s[r+1]]; d != 0 {
					s[w] = d
					w, r = w+1, r+2
					continue
				}
			}
			var buf [utf8.UTFMax]byte
			out, size, ok := escape(buf[:0], s[r:])
			if !ok {
				return nil, 0, fmt.Errorf("invalid escape %.6q at byte %d of a string", s[r:min(len(s), r+6)], r)
			}
			// Inv: an escape is never shorter than what it stands for.
			w += copy(s[w:], out)
			r += size
		case c < 0x20:
			return nil, 0, fmt.Errorf("control character %#x at byte %d of a string", c, r)
		case c < utf8.RuneSelf:
			s[w] = c
			w, r = w+1, r+1
		default:
			size := 3 // most often: a character of three bytes, checked here
			if c&0xF0 != 0xE0 || r+2 >= len(s) || s[r+1]&0xC0 != 0x80 || s[r+2]&0xC0 != 0x80 ||
				c == 0xE0 && s[r+1] < 0xA0 || c == 0xED && s[r+1] >= 0xA0 {
				size = runeLen(s[r:])
			}
			if size > 0 {
				if w != r {
					copy(s[w:w+size], s[r:r+size])
				}
				w, r = w+size, r+size
				continue
			}
			if r-w < 2 {
				// U+FFFD takes three bytes of the one it replaces, and the
				// escapes before left no room: go on in a copy, grown as
				// the string goes (s runs on past it, maybe far: a copy
				// sized to s would let a frame of many short strings cost
				// the square of its size).
				out := make([]byte, w, 2*w+64)
				copy(out, s[:w])
				out, n, err := appendUnquoted(out, s[r:])
				return out, r + n, err
			}
			w += copy(s[w:], "\uFFFD")
			r++
		}
	}
}

// runeLen is the length of the valid UTF-8 character s starts with, or 0
// if it does not start with one.
func runeLen(s []byte) int {
	switch c := s[0]; {
	case 0xC2 <= c && c <= 0xDF:
		if len(s) >= 2 && s[1]&0xC0 == 0x80 {
			return 2
		}
		return 0
	case 0xE0 <= c && c <= 0xEF:
		lo, hi := byte(0x80), byte(0xBF)
		switch c {
		case 0xE0:
			lo = 0xA0
		case 0xED:
			hi = 0x9F // no surrogates
		}
		if len(s) >= 3 && lo <= s[1] && s[1] <= hi && s[2]&0xC0 == 0x80 {
			return 3
		}
		return 0
	}
	if ch, size := utf8.DecodeRune(s); ch != utf8.RuneError || size != 1 {
		return size
	}
	return 0
}

// unescaped maps the character after a backslash to what the escape
// stands for, for the escapes of one character.
var unescaped = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// stops flags, in the high bit of each of its bytes, the bytes of x that
// end a plain run: ≥ 0x80, < 0x20, a quote or a backslash. The lowest flag
// is exact: a subtraction borrows from the next byte only at a byte it
// flags, and flags a byte ≥ 0x80 only when x does. Flags after it may be
// false.
func stops(x uint64) uint64 {
	const ones, high = 0x0101010101010101, 0x8080808080808080
	return (x | (x - 0x20*ones) | (x ^ '\\'*ones - ones) | (x ^ '"'*ones - ones)) & high
}

// appendUnquoted appends the text of the JSON string literal whose
// contents s starts with to out, as unquoteInPlace decodes it, and returns
// how many bytes of s the literal took.
func appendUnquoted(out, s []byte) ([]byte, int, error) {
	for r := 0; ; {
		n := plainRun(s[r:])
		out = append(out, s[r:r+n]...)
		r += n
		if r == len(s) {
			return nil, 0, fmt.Errorf("a string does not end")
		}
		switch c := s[r]; {
		case c == '"':
			return out, r + 1, nil
		case c == '\\':
			var ok bool
			var size int
			if out, size, ok = escape(out, s[r:]); !ok {
				return nil, 0, fmt.Errorf("invalid escape %.6q at byte %d of a string", s[r:min(len(s), r+6)], r)
			}
			r += size
		case c < 0x20:
			return nil, 0, fmt.Errorf("control character %#x at byte %d of a string", c, r)
		default:
			if size := runeLen(s[r:]); size > 0 {
				out = append(out, s[r:r+size]...)
				r += size
			} else {
				out = append(out, "\uFFFD"...)
				r++
			}
		}
	}
}

// appendQuoted appends the JSON string literal of text, which is valid
// UTF-8, to out: what appendUnquoted decodes back to text.
func appendQuoted(out, text []byte) []byte {
	const hex = "0123456789abcdef"
	out = append(out, '"')
	for len(text) > 0 {
		i := 0
		for i < len(text) && text[i] >= 0x20 && text[i] != '"' && text[i] != '\\' {
			i++
		}
		out = append(out, text[:i]...)
		if i == len(text) {
			break
		}
		switch c := text[i]; c {
		case '"', '\\':
			out = append(out, '\\', c)
		case '\n':
			out = append(out, '\\', 'n')
		case '\r':
			out = append(out, '\\', 'r')
		case '\t':
			out = append(out, '\\', 't')
		default:
			out = append(out, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
		}
		text = text[i+1:]
	}
	return append(out, '"')
}

// plainRun returns the length of s's prefix that decodes to itself: no
// quote, no backslash, no control character, nothing outside ASCII.
func plainRun(s []byte) int {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if m := stops(binary.LittleEndian.Uint64(s[i:])); m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '\\' || c == '"' {
			break
		}
	}
	return i
}

// escape appends the character of the escape that s starts with, and
// returns how many bytes of s it took; false if it is not an escape JSON
// allows.
func escape(out, s []byte) ([]byte, int, bool) {
	if len(s) < 2 {
		return out, 0, false
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		return append(out, c), 2, true
	case 'b':
		return append(out, '\b'), 2, true
	case 'f':
		return append(out, '\f'), 2, true
	case 'n':
		return append(out, '\n'), 2, true
	case 'r':
		return append(out, '\r'), 2, true
	case 't':
		return append(out, '\t'), 2, true
	case 'u':
		r := hex4(s[2:])
		if r < 0 {
			return out, 0, false
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2 := hex4(s[8:]); r2 >= 0 {
					if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
						return utf8.AppendRune(out, d), 12, true
					}
				}
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(out, r), 6, true
	}
	return out, 0, false
}

// hex4 is the value of four hex digits at the start of s, or -1.
func hex4(s []byte) rune {
	if len(s) < 4 {
		return -1
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
