package policy

import (
	"slices"
	"strings"
)

// A Command is a shell command line as the policy sees it: the simple
// commands it runs, and what it does that no rule about those commands can
// vouch for.
type Command struct {
	Line string
	// Parts are the simple commands, split at ;, &&, ||, |, &, newlines and
	// parentheses, trimmed, with comments dropped and inner white space
	// collapsed, in order.
	Parts []string
	// Substitution reports $(…), `…`, <(…) or >(…): commands inside other
	// commands, which no prefix rule can see.
	Substitution bool
	// Redirection reports input or output redirected to or from a file (>,
	// >>, <, <<, <<<), other than descriptor copies (2>&1) and /dev/null.
	Redirection bool
}

// ParseCommand splits a shell command line. It understands quotes and
// backslashes as POSIX shells do, and nothing else of the language: a rule
// that allows a command is only trusted for lines made of simple commands.
func ParseCommand(line string) Command {
	c := Command{Line: line}
	var cur strings.Builder
	flush := func() {
		if p := strings.Join(strings.Fields(cur.String()), " "); p != "" {
			c.Parts = append(c.Parts, p)
		}
		cur.Reset()
	}
	atWordStart := func() bool {
		s := cur.String()
		return s == "" || strings.ContainsAny(s[len(s)-1:], " \t")
	}
	inSingle, inDouble := false, false
	for i := 0; i < len(line); i++ {
		ch := line[i]
		next := byte(0)
		if i+1 < len(line) {
			next = line[i+1]
		}
		switch {
		case inSingle:
			cur.WriteByte(ch)
			inSingle = ch != '\''
		case ch == '\\' && next != 0:
			cur.WriteByte(ch)
			cur.WriteByte(next)
			i++
		case inDouble:
			if ch == '`' || ch == '$' && next == '(' {
				c.Substitution = true
			}
			cur.WriteByte(ch)
			inDouble = ch != '"'
		case ch == '\'':
			inSingle = true
			cur.WriteByte(ch)
		case ch == '"':
			inDouble = true
			cur.WriteByte(ch)
		case ch == '`', ch == '$' && next == '(', (ch == '<' || ch == '>') && next == '(':
			c.Substitution = true
			cur.WriteByte(ch)
		case ch == '#' && atWordStart():
			for i+1 < len(line) && line[i+1] != '\n' {
				i++
			}
		case ch == '&' && next == '>': // &> file: both outputs to a file
			cur.WriteByte(ch)
		case ch == '>' || ch == '<':
			n := redirection(line[i:])
			if !harmlessRedirection(line[i+n:]) {
				c.Redirection = true
			}
			cur.WriteString(line[i : i+n])
			i += n - 1
		case ch == ';' || ch == '\n' || ch == '|' || ch == '&' || ch == '(' || ch == ')':
			flush()
		default:
			cur.WriteByte(ch)
		}
	}
	flush()
	return c
}

// redirection returns the length of the redirection operator s starts with:
// >, >>, >|, <, <<, <<<, <<-, <>, or one of them followed by &.
func redirection(s string) int {
	n := 1
	for n < len(s) && n < 3 && (s[n] == s[0] || s[n] == '|' || s[n] == '-' || s[n] == '>' && s[0] == '<') {
		n++
	}
	if n < len(s) && s[n] == '&' {
		n++
	}
	return n
}

// harmlessRedirection reports whether the text after a redirection operator
// names a descriptor copy (">&2", "2>&1", ">&-") or /dev/null.
func harmlessRedirection(rest string) bool {
	if strings.HasPrefix(rest, "-") || rest != "" && rest[0] >= '0' && rest[0] <= '9' {
		return true // the operator ended in & and a descriptor follows
	}
	target := strings.TrimLeft(rest, " \t")
	if end := strings.IndexAny(target, " \t;&|)\n"); end >= 0 {
		target = target[:end]
	}
	return target == "/dev/null"
}

// wrappers run the command that follows them; a deny rule looks past them.
var wrappers = map[string]bool{
	"sudo": true, "env": true, "command": true, "exec": true, "nohup": true,
	"time": true, "nice": true, "builtin": true, "xargs": true, "{": true, "}": true, "!": true,
}

// bare strips the wrappers and variable assignments a simple command starts
// with: "sudo FOO=1 rm -rf x" is "rm -rf x" to a deny rule.
func bare(part string) string {
	words := strings.Fields(part)
	for len(words) > 0 && (wrappers[words[0]] || isAssignment(words[0])) {
		words = words[1:]
	}
	return strings.Join(words, " ")
}

func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// hasPrefix reports whether the simple command part starts with the words
// of prefix: "go test ./..." has the prefix "go test", "go testx" has not.
func hasPrefix(part, prefix string) bool {
	prefix = strings.Join(strings.Fields(prefix), " ")
	if prefix == "" {
		return false
	}
	return part == prefix || strings.HasPrefix(part, prefix+" ")
}

// Prefixes suggests the command prefixes an "always allow" rule would hold
// for line: one per simple command, its first word, and its second when that
// is a plain word such as a subcommand ("go test", "git status", "ls"). It
// returns nil when no prefix rule could allow the line: it substitutes
// commands, redirects to files, or a simple command starts with a variable
// assignment or a wrapper such as sudo.
func Prefixes(line string) []string {
	c := ParseCommand(line)
	if c.Substitution || c.Redirection || len(c.Parts) == 0 {
		return nil
	}
	var out []string
	for _, p := range c.Parts {
		words := strings.Fields(p)
		if wrappers[words[0]] || isAssignment(words[0]) || strings.ContainsAny(words[0], `'"\`) {
			return nil
		}
		prefix := words[0]
		if len(words) > 1 && isPlainWord(words[1]) {
			prefix += " " + words[1]
		}
		if !slices.Contains(out, prefix) {
			out = append(out, prefix)
		}
	}
	return out
}

// isPlainWord reports whether w looks like a subcommand: lower-case letters,
// digits, - and _, starting with a letter.
func isPlainWord(w string) bool {
	for i, r := range w {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_')) {
			return false
		}
	}
	return w != ""
}
