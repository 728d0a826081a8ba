package lsp

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// bigText is the length from which decodeSync decodes a "text" value
// itself.
const bigText = 64 << 10

// decodeSync decodes the params of didOpen or didChange into v, as
// json.Unmarshal does, at several times its speed for large documents:
// encoding/json takes seconds over a 200 MB string. The values of "text"
// members of bigText bytes or more are decoded here, by unquote, and
// replaced by short placeholders for json.Unmarshal; texts lists the fields
// of v that may hold one, to put the decoded text back. Anything unquote
// does not take (a bad escape, a control character) goes to json.Unmarshal
// whole, which reports it.
func decodeSync(params []byte, v any, texts func() []*string) error {
	spans := bigTextSpans(params)
	if len(spans) == 0 {
		return json.Unmarshal(params, v)
	}
	decoded := make([]string, len(spans))
	for i, sp := range spans {
		s, ok := unquote(params[sp[0]:sp[1]])
		if !ok {
			return json.Unmarshal(params, v)
		}
		decoded[i] = s
	}
	// The placeholders carry a random tag, so that no text the client sent
	// can pass for one.
	var tag [8]byte
	rand.Read(tag[:])
	id := "agentls-text-" + hex.EncodeToString(tag[:]) + "-"
	prefix := "\x00" + id
	small := make([]byte, 0, len(params)-(spans[len(spans)-1][1]-spans[0][0])+len(spans)*48)
	last := 0
	for i, sp := range spans {
		small = append(small, params[last:sp[0]]...)
		small = append(small, `"\u0000`+id...)
		small = strconv.AppendInt(small, int64(i), 10)
		small = append(small, '"')
		last = sp[1]
	}
	small = append(small, params[last:]...)
	if err := json.Unmarshal(small, v); err != nil {
		return err
	}
	for _, p := range texts() {
		if k, ok := strings.CutPrefix(*p, prefix); ok {
			if i, err := strconv.Atoi(k); err == nil && i < len(decoded) {
				*p = decoded[i]
			}
		}
	}
	return nil
}

// bigTextSpans returns the bounds, quotes included, of the string values of
// "text" members in the JSON b that are at least bigText long. b is a
// valid JSON value (the frame reader checked it): a string followed by ':'
// is a key, and a key's value is the next token.
func bigTextSpans(b []byte) [][2]int {
	var spans [][2]int
	afterText := false // the last token was the key "text" and its ':'
	for i := 0; i < len(b); {
		switch c := b[i]; c {
		case '"':
			end := stringEnd(b, i)
			if end < 0 {
				return nil
			}
			j := skipSpace(b, end)
			if j < len(b) && b[j] == ':' {
				afterText = string(b[i:end]) == `"text"`
				i = j + 1
				continue
			}
			if afterText && end-i >= bigText {
				spans = append(spans, [2]int{i, end})
			}
			afterText = false
			i = end
		case ' ', '\t', '\r', '\n':
			i++
		default:
			afterText = false
			i++
		}
	}
	return spans
}

// stringEnd returns the offset just after the JSON string that starts at
// b[i], or -1 if it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// unquote decodes the JSON string literal raw, quotes included, as
// json.Unmarshal does into a string: escapes decoded, invalid UTF-8 and
// lone surrogates as U+FFFD. It reports false for what json.Unmarshal
// refuses: a control character, a bad escape.
func unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	s := raw[1 : len(raw)-1]
	out := make([]byte, 0, len(s))
	for len(s) > 0 {
		i := bytes.IndexByte(s, '\\')
		run := s
		if i >= 0 {
			run = s[:i]
		}
		var ok bool
		if out, ok = appendPlain(out, run); !ok {
			return "", false
		}
		if i < 0 {
			break
		}
		n := 0
		if out, n = appendEscape(out, s[i:]); n == 0 {
			return "", false
		}
		s = s[i+n:]
	}
	if len(out) == 0 {
		return "", true
	}
	// Inv: out is not written again; the string owns it.
	return unsafe.String(&out[0], len(out)), true
}

// appendPlain appends the unescaped part run of a string, with invalid UTF-8
// as U+FFFD; false if it holds a control character.
func appendPlain(out, run []byte) ([]byte, bool) {
	const high, low = 0x8080808080808080, 0x2020202020202020
	for len(run) > 0 {
		// Skip eight plain ASCII bytes at a time: none ≥ 0x80, none < 0x20.
		i := 0
		for i+8 <= len(run) {
			x := binary.LittleEndian.Uint64(run[i:])
			if x&high != 0 || (x-low)&^x&high != 0 {
				break
			}
			i += 8
		}
		for i < len(run) && run[i] >= 0x20 && run[i] < utf8.RuneSelf {
			i++
		}
		out = append(out, run[:i]...)
		run = run[i:]
		if len(run) == 0 {
			break
		}
		if run[0] < 0x20 {
			return out, false
		}
		r, size := utf8.DecodeRune(run)
		out = utf8.AppendRune(out, r) // U+FFFD for an invalid byte
		run = run[size:]
	}
	return out, true
}

// appendEscape appends the character of the escape that s starts with and
// returns how many bytes it took; 0 if it is not an escape JSON allows.
func appendEscape(out, s []byte) ([]byte, int) {
	if len(s) < 2 {
		return out, 0
	}
	switch c := s[1]; c {
	case '"', '\\', '/':
		return append(out, c), 2
	case 'b':
		return append(out, '\b'), 2
	case 'f':
		return append(out, '\f'), 2
	case 'n':
		return append(out, '\n'), 2
	case 'r':
		return append(out, '\r'), 2
	case 't':
		return append(out, '\t'), 2
	case 'u':
		r := hex4(s[2:])
		if r < 0 {
			return out, 0
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2 := hex4(s[8:]); r2 >= 0 {
					if d := utf16.DecodeRune(r, r2); d != unicode.ReplacementChar {
						return utf8.AppendRune(out, d), 12
					}
				}
			}
			r = unicode.ReplacementChar
		}
		return utf8.AppendRune(out, r), 6
	}
	return out, 0
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
