// Package memory keeps the facts the agent was asked to remember in a
// section of a project context file (AGENTS.md, GEMINI.md): a file the
// user owns, reads and edits, that every later run reads. The section is a
// Markdown heading, [Heading], and a list of one-line facts. Nothing here
// writes a file: the caller proposes the new content to the user.
package memory

import (
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Heading opens the section of remembered facts.
const Heading = "## Remembered facts"

// MaxFact is the longest fact, in characters.
const MaxFact = 1000

// Check returns the fact as it would be written, trimmed, or why it cannot
// be: empty, too long, several lines, or holding control or invisible
// characters (an escape sequence, a character that reorders text), which a
// file every later run reads and the user reviews must not hide.
func Check(fact string) (string, error) {
	fact = strings.TrimSpace(fact)
	switch {
	case fact == "":
		return "", errors.New("the fact is empty")
	case len([]rune(fact)) > MaxFact:
		return "", fmt.Errorf("the fact is longer than %d characters; remember something shorter", MaxFact)
	case strings.ContainsAny(fact, "\r\n\u2028\u2029"):
		return "", errors.New("the fact spans several lines; give one line")
	}
	if i := strings.IndexFunc(fact, hiddenRune); i >= 0 {
		r := []rune(fact[i:])[0]
		return "", fmt.Errorf("the fact holds the control or invisible character %U; give plain text", r)
	}
	return fact, nil
}

// hiddenRune reports characters a fact must not hold: control characters
// (tabs, escapes, NUL…) and format characters (zero-width ones, bidi
// overrides), which show as nothing or reorder what is shown.
func hiddenRune(r rune) bool {
	return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || unicode.In(r, unicode.Zl, unicode.Zp)
}

// Facts returns the facts of content's section, in order.
func Facts(content string) []string {
	lines := strings.Split(content, "\n")
	start, end := section(lines)
	if start < 0 {
		return nil
	}
	var out []string
	for _, l := range lines[start+1 : end] {
		if f, ok := strings.CutPrefix(strings.TrimSpace(l), "- "); ok && strings.TrimSpace(f) != "" {
			out = append(out, strings.TrimSpace(f))
		}
	}
	return out
}

// Has reports whether content's section already holds fact.
func Has(content, fact string) bool {
	for _, f := range Facts(content) {
		if same(f, fact) {
			return true
		}
	}
	return false
}

// same compares facts ignoring case and runs of white space.
func same(a, b string) bool {
	return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
}

// Key is a fact's identity: two facts of one key are the same fact.
func Key(fact string) string { return strings.ToLower(strings.Join(strings.Fields(fact), " ")) }

// Add returns content with fact appended to its section, which is added
// at the end when there is none. The fact must have passed [Check].
func Add(content, fact string) string {
	item := "- " + fact
	lines := strings.Split(content, "\n")
	start, end := section(lines)
	if start < 0 {
		var b strings.Builder
		b.WriteString(strings.TrimRight(content, "\n"))
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(Heading + "\n\n" + item + "\n")
		return b.String()
	}
	// After the section's last line with text, before the blank lines
	// that part it from what follows.
	at := end
	for at > start+1 && strings.TrimSpace(lines[at-1]) == "" {
		at--
	}
	if at == start+1 { // an empty section: keep a blank line under the heading
		ins := []string{"", item}
		if at == len(lines) || strings.TrimSpace(lines[at]) != "" {
			ins = append(ins, "")
		}
		return strings.Join(insert(lines, at, ins...), "\n")
	}
	return strings.Join(insert(lines, at, item), "\n")
}

func insert(lines []string, at int, add ...string) []string {
	out := make([]string, 0, len(lines)+len(add))
	out = append(out, lines[:at]...)
	out = append(out, add...)
	return append(out, lines[at:]...)
}

// section finds the section: the line of its heading, and the line where it
// ends (the next heading of its level or higher, or the end); start is -1
// when there is none.
func section(lines []string) (start, end int) {
	start = -1
	for i, l := range lines {
		if strings.EqualFold(strings.TrimSpace(l), Heading) {
			start = i
			break
		}
	}
	if start < 0 {
		return -1, -1
	}
	inFence := false
	for i := start + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if strings.HasPrefix(t, "```") {
			inFence = !inFence
		}
		if !inFence && (strings.HasPrefix(t, "# ") || strings.HasPrefix(t, "## ")) {
			return start, i
		}
	}
	return start, len(lines)
}
