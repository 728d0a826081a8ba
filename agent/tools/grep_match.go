package tools

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// A lineMatcher finds the lines of a text that a pattern matches, each line
// matched on its own, without matching every line: it looks for what a
// matching line must contain (a literal, or a match of the pattern in the
// whole text) and matches only the lines it finds that way.
//
// A line is the text between two "\n", without the "\r"s that end it.
type lineMatcher struct {
	line *regexp.Regexp // the pattern, matched against one line
	// lits are strings one of which every match contains; nil when none is
	// known. fold: they are lower case, and searched in a lower-cased copy
	// of the text (ASCII letters only).
	lits [][]byte
	fold bool
	// text is the pattern with ^, $, \A and \z matching at line ends, for
	// finding lines in the whole text when lits is nil.
	text *regexp.Regexp
	// ends: the pattern has an end anchor, which in text does not match
	// before a "\r": a text holding one is matched line by line.
	ends bool
}

// newLineMatcher compiles pattern (RE2 syntax) for matching lines.
func newLineMatcher(pattern string) (*lineMatcher, error) {
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: line}
	tree, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	tree = tree.Simplify()
	if r := required(tree); len(r.lits) > 0 && r.usable() {
		m.fold = r.fold
		for _, l := range r.lits {
			if m.fold {
				l = lowerASCII(nil, l)
			}
			m.lits = append(m.lits, l)
		}
		return m, nil
	}
	m.ends = lineAnchors(tree)
	if m.text, err = regexp.Compile(tree.String()); err != nil {
		return nil, err
	}
	return m, nil
}

// lineAnchors turns the text anchors of tree into line anchors and reports
// whether it has an end anchor.
func lineAnchors(re *syntax.Regexp) bool {
	ends := false
	switch re.Op {
	case syntax.OpBeginText:
		re.Op = syntax.OpBeginLine
	case syntax.OpEndText:
		re.Op, re.Flags = syntax.OpEndLine, re.Flags&^syntax.WasDollar
		ends = true
	case syntax.OpEndLine:
		ends = true
	}
	for _, s := range re.Sub {
		ends = lineAnchors(s) || ends
	}
	return ends
}

// A found is a line that matched: its number (1-based), and its text.
type found struct {
	n    int
	text []byte
}

// scan calls yield for each line of text that matches, in order, with its
// number when number is set (else 0), until yield returns false. fold is a
// buffer for a lower-cased copy of text; scan returns it, grown.
func (m *lineMatcher) scan(text, fold []byte, number bool, yield func(found) bool) []byte {
	var next func(from int) int // the offset of the next candidate, or -1
	switch {
	case m.lits != nil:
		hay := text
		if m.fold {
			fold = lowerASCII(fold[:0], text)
			hay = fold
		}
		next = func(from int) int { return indexAny(hay[from:], m.lits, from) }
	case m.ends && bytes.IndexByte(text, '\r') >= 0:
		next = func(from int) int { return from } // every line
	default:
		next = func(from int) int {
			loc := m.text.FindIndex(text[from:])
			if loc == nil {
				return -1
			}
			return from + loc[0]
		}
	}
	lineNo, counted := 1, 0 // the number of the line at offset counted
	// A text that ends with "\n" has no empty line after it.
	for from := 0; from < len(text); {
		at := next(from)
		if at < 0 || at == len(text) && text[at-1] == '\n' {
			break
		}
		start := bytes.LastIndexByte(text[:at], '\n') + 1
		end := len(text)
		if i := bytes.IndexByte(text[at:], '\n'); i >= 0 {
			end = at + i
		}
		l := text[start:end]
		for len(l) > 0 && l[len(l)-1] == '\r' {
			l = l[:len(l)-1]
		}
		if m.line.Match(l) {
			f := found{text: l}
			if number {
				lineNo += bytes.Count(text[counted:start], []byte{'\n'})
				counted = start
				f.n = lineNo
			}
			if !yield(f) {
				break
			}
		}
		from = end + 1
	}
	return fold
}

// indexAny returns the smallest offset of one of lits in hay, plus base; -1
// when none is in it.
func indexAny(hay []byte, lits [][]byte, base int) int {
	best := -1
	for _, l := range lits {
		h := hay
		if best >= 0 {
			h = hay[:min(len(hay), best+len(l))]
		}
		if i := bytes.Index(h, l); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	if best < 0 {
		return -1
	}
	return base + best
}

// A literals is what a regular expression's matches must contain: one of
// lits (none known when empty); fold: up to ASCII case.
type literals struct {
	lits [][]byte
	fold bool
	// exact: every match of the expression is one of lits, so it may be
	// joined with its neighbours in a concatenation.
	exact bool
}

// maxLiterals bounds the strings a search looks for at once.
const maxLiterals = 8

// usable reports whether searching for r is worth it and right: not too
// many strings, none empty or holding a line break (no line holds one), and
// a folded search only for letters whose other cases are all ASCII.
func (r literals) usable() bool {
	if len(r.lits) == 0 || len(r.lits) > maxLiterals {
		return false
	}
	for _, l := range r.lits {
		if len(l) == 0 || bytes.IndexByte(l, '\n') >= 0 {
			return false
		}
		if r.fold && !foldsInASCII(l) {
			return false
		}
	}
	return true
}

// score ranks literal sets: the longer their shortest string and the fewer
// their strings, the fewer false candidates.
func (r literals) score() int {
	if len(r.lits) == 0 {
		return 0
	}
	shortest := len(r.lits[0])
	for _, l := range r.lits {
		shortest = min(shortest, len(l))
	}
	return shortest*maxLiterals - len(r.lits)
}

// required returns what every match of re contains.
func required(re *syntax.Regexp) literals {
	switch re.Op {
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		return literals{lits: [][]byte{runesUTF8(re.Rune)}, fold: fold, exact: true}
	case syntax.OpCharClass:
		// A small class is a few strings: ab[cd] is abc or abd.
		var r literals
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				if len(r.lits) == maxLiterals/2 {
					return literals{}
				}
				r.lits = append(r.lits, utf8.AppendRune(nil, c))
			}
		}
		r.exact = true
		return r
	case syntax.OpCapture:
		return required(re.Sub[0])
	case syntax.OpPlus:
		r := required(re.Sub[0])
		r.exact = false
		return r
	case syntax.OpRepeat:
		if re.Min < 1 {
			return literals{}
		}
		r := required(re.Sub[0])
		r.exact = r.exact && re.Min == 1 && re.Max == 1
		return r
	case syntax.OpAlternate:
		var all literals
		all.exact = true
		for _, s := range re.Sub {
			r := required(s)
			if !r.usable() {
				return literals{}
			}
			all.lits = append(all.lits, r.lits...)
			all.fold = all.fold || r.fold
			all.exact = all.exact && r.exact
		}
		return all
	case syntax.OpConcat:
		return requiredConcat(re.Sub)
	}
	return literals{}
}

// requiredConcat returns the best of what a concatenation's parts require,
// joining runs of exact parts into longer strings.
func requiredConcat(subs []*syntax.Regexp) literals {
	var best, run literals
	consider := func(r literals) {
		if r.usable() && r.score() > best.score() {
			best = r
		}
	}
	for _, s := range subs {
		r := required(s)
		consider(r)
		if !r.exact || !r.usable() {
			consider(run)
			run = literals{}
			continue
		}
		if len(run.lits) == 0 {
			run = r
		} else {
			run = joinLiterals(run, r)
		}
		consider(run)
	}
	best.exact = false
	return best
}

// joinLiterals is every string of a followed by one of b, while there are
// not too many.
func joinLiterals(a, b literals) literals {
	if len(a.lits)*len(b.lits) > maxLiterals {
		return b
	}
	j := literals{fold: a.fold || b.fold, exact: true}
	for _, x := range a.lits {
		for _, y := range b.lits {
			j.lits = append(j.lits, append(slices.Clip(x), y...))
		}
	}
	return j
}

func runesUTF8(rs []rune) []byte {
	var b []byte
	for _, r := range rs {
		b = utf8.AppendRune(b, r)
	}
	return b
}

// foldsInASCII reports whether every case of every letter of l is ASCII.
// "k" and "s" are not: K (U+212A) and ſ (U+017F) fold to them.
func foldsInASCII(l []byte) bool {
	for _, c := range l {
		switch {
		case c >= utf8.RuneSelf:
			return false
		case c == 'k' || c == 'K' || c == 's' || c == 'S':
			return false
		}
	}
	return true
}

// lowerASCII appends src to dst with ASCII letters in lower case.
func lowerASCII(dst, src []byte) []byte {
	dst = slices.Grow(dst, len(src))
	for _, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}
