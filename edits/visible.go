package edits

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible returns s as a person should be shown it: every character that
// could change what the screen shows without being seen itself is escaped
// as \xHH or \uHHHH — C0 controls but newline and tab (a carriage return, a
// terminal escape sequence), DEL, C1 controls, bidirectional formatting
// (U+202E and its kin, U+2066–U+2069), zero-width and other invisible
// characters (U+200B–U+200D, U+2060–U+2064, U+FEFF, Unicode tags), line and
// paragraph separators, and bytes that are not UTF-8. A backslash that
// would make an escape ambiguous is left as it is. hidden reports whether
// anything was escaped.
func Visible(s string) (shown string, hidden bool) {
	i := 0
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || invisible(r) {
			break
		}
		i += n
	}
	if i == len(s) {
		return s, false // the common case: nothing to escape
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case invisible(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case invisible(r) && r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case invisible(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String(), true
}

// VisibleLine is [Visible] for text shown on one line: newlines and tabs
// are escaped too.
func VisibleLine(s string) (shown string, hidden bool) {
	shown, hidden = Visible(s)
	if strings.ContainsAny(shown, "\n\t") {
		shown = strings.NewReplacer("\n", `\n`, "\t", `\t`).Replace(shown)
		hidden = true
	}
	return shown, hidden
}

// invisible reports whether r changes the display without showing itself.
func invisible(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0: // C0, DEL, C1
		return true
	case r == 0xad, r == 0x34f, r == 0x61c, r == 0x115f, r == 0x1160, r == 0x17b4, r == 0x17b5, r == 0x180e, r == 0x3164, r == 0xfeff, r == 0xffa0:
		return true // soft hyphen, grapheme joiner, Arabic letter mark, fillers, BOM
	case r >= 0x200b && r <= 0x200f: // zero-width space, joiners, LRM, RLM
		return true
	case r >= 0x2028 && r <= 0x202e: // line and paragraph separators, bidi embeddings and overrides
		return true
	case r >= 0x2060 && r <= 0x206f: // word joiner, invisible operators, bidi isolates, deprecated formats
		return true
	case r >= 0xfff9 && r <= 0xfffb: // interlinear annotations
		return true
	case r >= 0xe0000 && r <= 0xe007f: // tags: invisible ASCII
		return true
	}
	return false
}
