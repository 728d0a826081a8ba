package tools

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// naiveLines is what lineMatcher must find: every line, matched alone.
func naiveLines(re *regexp.Regexp, text string) []found {
	var out []found
	n := 0
	for line := range strings.Lines(text) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if re.MatchString(line) {
			out = append(out, found{n: n, text: []byte(line)})
		}
	}
	return out
}

func scanAll(m *lineMatcher, text string) []found {
	var out []found
	m.scan([]byte(text), nil, true, func(f found) bool {
		out = append(out, found{n: f.n, text: append([]byte(nil), f.text...)})
		return true
	})
	return out
}

var matcherSeeds = []struct{ pattern, text string }{
	{"func", "package a\nfunc f() {}\n\nfunc g() {}\n"},
	{`^func \w+\(`, "func a(\n  func b(\nxfunc c(\nfunc d(\n"},
	{`\{$`, "a {\r\nb {\nc { \n{"},
	{`^$`, "a\n\n\r\nb\n"},
	{`(?i)todo`, "TODO: x\ntodo\nToDo\ntodO\nnothing\n"},
	{`(?i)ks`, "KS\nks\n\u212as\nk\u017f\n"},
	{`foo|bar`, "foo\nbar\nbaz\nfoobar\n"},
	{`a[bc]d`, "abd\nacd\nadd\n"},
	{`\bx\b`, "x\nax\n x \nx\r\n"},
	{`\Ax\z`, "x\nxx\nx\r\n x\n"},
	{`a\nb`, "a\nb\n"},
	{`[^a]+`, "aaa\nab\n\n"},
	{`x+y`, "xxy\ny\nxy"},
	{`.`, ""},
	{`(?s).`, "\n\n"},
	{`héllo`, "héllo\nhello\n"},
	{`\d{3}-\d{4}`, "555-1234\n55-1234\n"},
	{`(?m)^b`, "a\nb\nab\n"},
	{`a$|^b`, "xa\r\nb\n"},
}

func TestLineMatcher(t *testing.T) {
	t.Parallel()
	for _, s := range matcherSeeds {
		m, err := newLineMatcher(s.pattern)
		if err != nil {
			t.Fatal(err)
		}
		want := naiveLines(m.line, s.text)
		if diff := cmp.Diff(want, scanAll(m, s.text), cmp.AllowUnexported(found{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("/%s/ in %q (-want +got):\n%s", s.pattern, s.text, diff)
		}
	}
}

// TestLineMatcherLiterals checks that the patterns a search can speed up
// are the ones it does: a matcher that fell back to the regular expression
// everywhere would still find the right lines, only slower.
func TestLineMatcherLiterals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		pattern string
		lits    []string
		fold    bool
	}{
		{"func main", []string{"func main"}, false},
		{`func \w+Error\(`, []string{"Error("}, false},
		{`^import "fmt"$`, []string{`import "fmt"`}, false},
		{`(?i)todo`, []string{"todo"}, true},
		{`(?i)task`, nil, false}, // K and ſ fold to k and s
		{`foo|bar`, []string{"foo", "bar"}, false},
		{`ab[cd]e`, []string{"abce", "abde"}, false},
		{`x+yz`, []string{"yz"}, false},
		{`\d+`, nil, false},
		{`a\nb`, nil, false},
	}
	for _, tt := range tests {
		m, err := newLineMatcher(tt.pattern)
		if err != nil {
			t.Fatal(err)
		}
		var lits []string
		for _, l := range m.lits {
			lits = append(lits, string(l))
		}
		if diff := cmp.Diff(tt.lits, lits); diff != "" || m.fold != tt.fold {
			t.Errorf("/%s/: fold %v (-want +got):\n%s", tt.pattern, m.fold, diff)
		}
	}
}

// FuzzLineMatcher compares the matcher with matching every line on its own.
func FuzzLineMatcher(f *testing.F) {
	for _, s := range matcherSeeds {
		f.Add(s.pattern, s.text)
	}
	f.Fuzz(func(t *testing.T, pattern, text string) {
		m, err := newLineMatcher(pattern)
		if err != nil {
			return
		}
		want := naiveLines(m.line, text)
		if diff := cmp.Diff(want, scanAll(m, text), cmp.AllowUnexported(found{}), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("/%s/ in %q (-want +got):\n%s", pattern, text, diff)
		}
	})
}
