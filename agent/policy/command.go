package policy

import (
	"fmt"
	"io/fs"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// A Command is a shell command line as bash would read it (commands run
// with bash -c), parsed with a real shell parser.
type Command struct {
	Line string
	// Calls are the simple commands of a simple line, in order: the line's
	// own commands, joined by ;, newlines, &&, ||, | or |&, or grouped in
	// ( ) or { }. Only these are what a line is allowed by.
	Calls []Call
	// Complex says why the line is more than simple commands, "" when it is
	// not: it cannot be parsed, substitutes commands ($(…), `…`, <(…)),
	// uses shell control structures, here-documents, background jobs or
	// arithmetic, sets variables for the shell, or runs a command through
	// another (eval, sh -c, sudo, env, xargs…). No rule allows such a line.
	Complex string
	// Redirection reports input or output redirected to or from a file:
	// every redirection but descriptor copies (2>&1, >&-) and /dev/null.
	Redirection bool
	// Runs are the commands the line would run, as far as its text tells,
	// for deny and ask rules: every simple command anywhere in it (inside
	// substitutions, loops and functions too), each also seen through the
	// wrappers it starts with (sudo, env, timeout, nice, command, xargs,
	// find -exec…), with a path reduced to its last element (/bin/rm is
	// rm), and the commands of sh -c and eval strings.
	Runs []Call
}

// A Call is a simple command: its variable assignments and its words.
type Call struct {
	Assigns []Word
	Words   []Word
}

// A Word is a shell word as the program would receive it: quotes removed,
// escapes and $'…' resolved. A word whose value only the running shell
// knows ($HOME, *.go, {a,b}, ~) is not Static and keeps its source text.
type Word struct {
	Text   string
	Static bool
}

// String is the call as one line of shell text: static words quoted where
// they need it, others as written.
func (c Call) String() string {
	var b strings.Builder
	for _, w := range c.Assigns {
		if name, value, ok := strings.Cut(w.Text, "="); ok && w.Static {
			b.WriteString(name + "=" + Word{Text: value, Static: true}.quoted() + " ")
		} else {
			b.WriteString(w.Text + " ")
		}
	}
	for i, w := range c.Words {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w.quoted())
	}
	return strings.TrimSuffix(b.String(), " ")
}

func (w Word) quoted() string {
	if !w.Static {
		return w.Text
	}
	q, err := syntax.Quote(w.Text, syntax.LangBash)
	if err != nil {
		return w.Text // a NUL: no shell word holds one
	}
	return q
}

// texts is the words' text.
func texts(ws []Word) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Text
	}
	return out
}

// ParseCommand parses a shell command line the way bash -c would.
func ParseCommand(line string) Command {
	c := Command{Line: line}
	p := &parse{cmd: &c}
	p.runs(line, 0)
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(line), "")
	if err != nil {
		c.Complex = fmt.Sprintf("it cannot be parsed (%v)", err)
		c.Calls = nil
		return c
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			p.complex("it substitutes commands")
		case *syntax.ArithmExp:
			p.complex("it uses arithmetic expansion")
		case *syntax.ExtGlob:
			// bash -c reads @(…) and !(…) as globs only with shopt -s extglob,
			// else !(…) is a negated subshell.
			p.complex("it has an extended glob or !( )")
		case *syntax.ParamExp:
			if x.Index != nil || x.Slice != nil {
				p.complex("it uses arithmetic expansion") // subscripts and offsets are arithmetic
			}
		}
		return true
	})
	for _, s := range f.Stmts {
		p.stmt(s)
	}
	if c.Complex != "" {
		c.Calls = nil
	}
	return c
}

// parse collects a Command.
type parse struct {
	cmd *Command
}

func (p *parse) complex(format string, args ...any) {
	if p.cmd.Complex == "" {
		p.cmd.Complex = fmt.Sprintf(format, args...)
	}
}

// stmt reads a statement of a simple line; anything else makes the line
// complex.
func (p *parse) stmt(s *syntax.Stmt) {
	switch {
	case s.Background:
		p.complex("it starts a command in the background (&)")
	case s.Coprocess, s.Disown:
		p.complex("it starts a coprocess")
	}
	for _, r := range s.Redirs {
		p.redirect(r)
	}
	switch x := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		p.call(x)
	case *syntax.BinaryCmd:
		p.stmt(x.X)
		p.stmt(x.Y)
	case *syntax.Subshell:
		for _, s := range x.Stmts {
			p.stmt(s)
		}
	case *syntax.Block:
		for _, s := range x.Stmts {
			p.stmt(s)
		}
	case *syntax.TimeClause:
		if x.Stmt != nil {
			p.stmt(x.Stmt)
		}
	default:
		p.complex("it uses shell %s", construct(x))
	}
}

// construct names a compound command for the user.
func construct(c syntax.Command) string {
	switch c.(type) {
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		return "while/until loops"
	case *syntax.ForClause:
		return "for loops"
	case *syntax.CaseClause:
		return "case"
	case *syntax.FuncDecl:
		return "functions"
	case *syntax.ArithmCmd, *syntax.LetClause:
		return "arithmetic"
	case *syntax.TestClause:
		return "[[ tests ]]"
	case *syntax.DeclClause:
		return "declarations (export, declare, local…)"
	case *syntax.CoprocClause:
		return "coprocesses"
	}
	return fmt.Sprintf("%T", c)
}

// redirect classifies a redirection: descriptor copies and /dev/null are
// harmless; here-documents make the line complex; the rest redirect.
func (p *parse) redirect(r *syntax.Redirect) {
	if r.N != nil && !isDigits(r.N.Value) {
		p.cmd.Redirection = true // {var}>…: a descriptor the shell picks
	}
	target, static := wordText(r.Word)
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		p.complex("it has a here-document")
	case syntax.WordHdoc:
		p.cmd.Redirection = true
	case syntax.DplIn, syntax.DplOut:
		if !static || !(isDigits(target) || target == "-") {
			p.cmd.Redirection = true // >&file writes to a file
		}
	default:
		if !static || target != "/dev/null" {
			p.cmd.Redirection = true
		}
	}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// call adds a simple command of the line.
func (p *parse) call(x *syntax.CallExpr) {
	c := callOf(x)
	for _, a := range x.Assigns {
		if a.Array != nil || a.Index != nil || a.Naked {
			p.complex("it assigns an array")
		}
	}
	if len(c.Words) == 0 {
		p.complex("it sets shell variables")
	}
	if len(c.Words) > 0 && c.Words[0].Static {
		if name := baseName(c.Words[0].Text); hidesCommand[name] {
			p.complex("it runs a command through %s", name)
		}
	}
	p.cmd.Calls = append(p.cmd.Calls, c)
}

// callOf reads a simple command's words. A word with a command or process
// substitution or an arithmetic expansion keeps its source text; the line
// is then complex, which the walk in runs finds.
func callOf(x *syntax.CallExpr) Call {
	var c Call
	for _, a := range x.Assigns {
		w := Word{Static: true}
		if a.Name != nil {
			w.Text = a.Name.Value + "="
		}
		if a.Append {
			w.Text = strings.TrimSuffix(w.Text, "=") + "+="
		}
		if a.Value != nil {
			v, static := wordText(a.Value)
			w.Text += v
			w.Static = static
		}
		if a.Array != nil || a.Index != nil {
			w.Static = false
		}
		c.Assigns = append(c.Assigns, w)
	}
	for _, a := range x.Args {
		t, static := wordText(a)
		c.Words = append(c.Words, Word{Text: t, Static: static})
	}
	return c
}

// wordText is what the shell makes of w: its value when the text alone
// tells it, else its source text and false.
func wordText(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", true
	}
	if !staticParts(w.Parts) {
		return source(w), false
	}
	if lit, ok := w.Parts[0].(*syntax.Lit); ok && strings.HasPrefix(lit.Value, "~") {
		return source(w), false // the home folder
	}
	globbed := false
	cfg := &expand.Config{ReadDir2: func(string) ([]fs.DirEntry, error) { globbed = true; return nil, nil }}
	fields, err := expand.Fields(cfg, w)
	if err != nil || globbed || len(fields) != 1 {
		return source(w), false // a glob or a brace expansion
	}
	return fields[0], true
}

// staticParts reports whether word parts hold only literal text and quotes.
func staticParts(parts []syntax.WordPart) bool {
	for _, part := range parts {
		switch x := part.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !staticParts(x.Parts) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// source is a word as written (in bash's own spelling).
func source(w *syntax.Word) string {
	var b strings.Builder
	syntax.NewPrinter().Print(&b, w)
	return b.String()
}

// baseName is the last element of a command path: /bin/rm is rm.
func baseName(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 && i < len(s)-1 {
		return s[i+1:]
	}
	return s
}
