package policy

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A wrapper is a command that runs the command its arguments name, after
// its own options.
type wrapper struct {
	valued     string   // short options that take a value ("u" of sudo -u root)
	long       []string // long options that take a value, without "--"
	positional int      // words before the command (timeout's duration)
	assigns    bool     // NAME=value words may come before the command
}

var wrappers = map[string]wrapper{
	"sudo":     {valued: "ugCDhprtTU", long: []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "command-timeout", "other-user"}, assigns: true},
	"doas":     {valued: "uC"},
	"env":      {valued: "uCS", long: []string{"unset", "chdir", "split-string"}, assigns: true},
	"command":  {},
	"exec":     {valued: "a"},
	"builtin":  {},
	"nohup":    {},
	"time":     {valued: "fo", long: []string{"format", "output"}},
	"nice":     {valued: "n", long: []string{"adjustment"}},
	"timeout":  {valued: "sk", long: []string{"signal", "kill-after"}, positional: 1},
	"stdbuf":   {valued: "ioe", long: []string{"input", "output", "error"}},
	"ionice":   {valued: "cnpPu", long: []string{"class", "classdata", "pid", "pgid", "uid"}},
	"setsid":   {},
	"chrt":     {positional: 1},
	"taskset":  {positional: 1},
	"flock":    {valued: "wEc", long: []string{"timeout", "conflict-exit-code", "command"}, positional: 1},
	"unbuffer": {},
	"xargs":    {valued: "aEIILnPsd", long: []string{"arg-file", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "delimiter", "process-slot-var"}},
}

// shells run the command string of -c.
var shells = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "mksh": true, "ash": true,
	"busybox": true, "fish": true, "csh": true, "tcsh": true,
}

// hidesCommand are the commands that run other commands named in their
// arguments or in files: a line with one of them is complex.
var hidesCommand = func() map[string]bool {
	m := map[string]bool{"eval": true, "source": true, ".": true, "trap": true, "alias": true, "enable": true}
	for w := range wrappers {
		m[w] = true
	}
	for s := range shells {
		m[s] = true
	}
	return m
}()

// maxNesting bounds how deep sh -c and eval strings are read.
const maxNesting = 4

// runs adds the commands line would run to p.cmd.Runs. A line that cannot
// be parsed whole is read as far as it can be.
func (p *parse) runs(line string, depth int) {
	if depth > maxNesting {
		return
	}
	f, _ := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.RecoverErrors(8)).Parse(strings.NewReader(line), "")
	if f == nil {
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if x, ok := n.(*syntax.CallExpr); ok {
			p.reduce(callOf(x).Words, depth)
		}
		return true
	})
}

// reduce adds the command words run, and the commands it runs in turn.
func (p *parse) reduce(words []Word, depth int) {
	if len(words) == 0 || depth > maxNesting {
		return
	}
	run := slices.Clone(words)
	if run[0].Static {
		run[0].Text = baseName(run[0].Text)
	}
	p.cmd.Runs = append(p.cmd.Runs, Call{Words: run})
	if !run[0].Static {
		return
	}
	name, args := run[0].Text, run[1:]
	switch {
	case name == "eval":
		if line, ok := joinStatic(args); ok {
			p.runs(line, depth+1)
		}
	case shells[name]:
		if s, ok := shellString(args); ok {
			p.runs(s, depth+1)
		}
	case name == "find":
		for i, w := range args {
			if w.Static && slices.Contains([]string{"-exec", "-execdir", "-ok", "-okdir"}, w.Text) {
				end := slices.IndexFunc(args[i+1:], func(w Word) bool { return w.Text == ";" || w.Text == "+" })
				if end < 0 {
					end = len(args) - i - 1
				}
				p.reduce(args[i+1:i+1+end], depth+1)
			}
		}
	default:
		if wr, ok := wrappers[name]; ok {
			rest, split := wr.skip(args)
			if split != "" {
				p.runs(split, depth+1) // env -S "…"
			}
			p.reduce(rest, depth+1)
		}
	}
}

// skip returns the words after the wrapper's options, and the string of
// env -S, which env splits into the command.
func (wr wrapper) skip(args []Word) (rest []Word, split string) {
	i := 0
	for i < len(args) {
		w := args[i]
		if !w.Static {
			break
		}
		t := w.Text
		switch {
		case t == "--":
			i++
			return wr.positionals(args[i:]), split
		case strings.HasPrefix(t, "--") && len(t) > 2:
			name, _, hasValue := strings.Cut(t[2:], "=")
			i++
			if slices.Contains(wr.long, name) && !hasValue && i < len(args) {
				if name == "split-string" {
					split = args[i].Text
				}
				i++
			} else if name == "split-string" {
				_, split, _ = strings.Cut(t, "=")
			}
			continue
		case strings.HasPrefix(t, "-") && len(t) > 1:
			// A cluster of short options (-ec), or -N of nice.
			i++
			for j := 1; j < len(t); j++ {
				if strings.IndexByte(wr.valued, t[j]) >= 0 {
					value := t[j+1:]
					if value == "" && i < len(args) {
						value = args[i].Text
						i++
					}
					if t[j] == 'S' {
						split = value
					}
					break
				}
			}
			continue
		case wr.assigns && isAssignment(t):
			i++
			continue
		}
		break
	}
	return wr.positionals(args[i:]), split
}

// positionals drops the wrapper's own positional words.
func (wr wrapper) positionals(rest []Word) []Word {
	if len(rest) < wr.positional {
		return nil
	}
	return rest[wr.positional:]
}

// shellString is the command string of sh -c "…" (or -ec, -xc…).
func shellString(args []Word) (string, bool) {
	dashC := false
	for _, w := range args {
		if !w.Static {
			return "", false
		}
		t := w.Text
		if strings.HasPrefix(t, "-") || strings.HasPrefix(t, "+") {
			if t == "--" || t == "-" {
				continue
			}
			if !strings.HasPrefix(t, "--") && strings.Contains(t[1:], "c") {
				dashC = true
			}
			continue
		}
		return t, dashC
	}
	return "", false
}

// joinStatic joins the words with spaces, as eval does; false when one of
// them is not known before the shell runs.
func joinStatic(ws []Word) (string, bool) {
	var parts []string
	for _, w := range ws {
		if !w.Static {
			return "", false
		}
		parts = append(parts, w.Text)
	}
	return strings.Join(parts, " "), true
}

// isAssignment reports whether word is NAME=value.
func isAssignment(word string) bool {
	name, _, ok := strings.Cut(word, "=")
	return ok && syntax.ValidName(name)
}
