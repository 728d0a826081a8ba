package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
)

// printer shows a run's events on a terminal. Events come from the run's
// goroutine, questions from tool goroutines.
type printer struct {
	w     io.Writer
	color bool

	mu      sync.Mutex
	subject string // the last thought subject shown
	inText  bool   // a text chunk line is open
}

func newPrinter(w io.Writer, color bool) *printer { return &printer{w: w, color: color} }

const (
	dim   = "\x1b[2m"
	bold  = "\x1b[1m"
	red   = "\x1b[31m"
	green = "\x1b[32m"
	cyan  = "\x1b[36m"
	reset = "\x1b[0m"
)

func (p *printer) paint(style, s string) string {
	if !p.color {
		return s
	}
	return style + s + reset
}

func (p *printer) line(format string, args ...any) {
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

func (p *printer) event(ev agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	indent := ""
	if ev.ParentRunID != "" {
		indent = "  │ "
	}
	switch ev.Type {
	case agent.EventThought:
		if ev.Subject != "" && ev.Subject != p.subject {
			p.subject = ev.Subject
			p.line("%s%s", indent, p.paint(dim, "· "+ev.Subject))
		}
	case agent.EventText:
		fmt.Fprint(p.w, ev.Text)
		p.inText = !strings.HasSuffix(ev.Text, "\n")
	case agent.EventToolCall:
		if ev.Call.Name == agent.CompleteTaskName {
			return
		}
		what := ev.Call.Display
		if what == "" {
			what = ev.Call.Name + " " + string(ev.Call.Args)
		}
		p.line("%s%s %s", indent, p.paint(cyan, "→"), what)
	case agent.EventToolResult:
		if ev.Result.IsError {
			p.line("%s  %s", indent, p.paint(red, "✗ "+firstLine(ev.Result.Output)))
		}
	case agent.EventEditProposed:
		p.line("%sProposed change to %s (+%d −%d):", indent, ev.Edit.Name, ev.Edit.Added, ev.Edit.Deleted)
		p.diff(ev.Edit.Diff)
	case agent.EventEditDecided:
		p.line("%s  change to %s: %s", indent, ev.Edit.Name, ev.Edit.Outcome)
	case agent.EventRunEnd:
		p.line("")
		if ev.End.Reason == agent.StopGoal {
			p.line("%s\n%s", p.paint(bold+green, "✓ Done"), ev.End.Result)
		} else {
			p.line("%s %s", p.paint(bold+red, "✗ Stopped: "+string(ev.End.Reason)), ev.End.Error)
		}
		if ev.Usage != nil {
			p.line("%s", p.paint(dim, fmt.Sprintf("%d turns, tokens: %d prompt, %d output, %d thoughts",
				ev.End.Turns, ev.Usage.Prompt, ev.Usage.Output, ev.Usage.Thoughts)))
		}
	}
}

// diff prints a unified diff, coloured on a terminal.
func (p *printer) diff(d string) {
	for _, l := range strings.SplitAfter(d, "\n") {
		if l == "" {
			continue
		}
		style := ""
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"):
			style = bold
		case strings.HasPrefix(l, "+"):
			style = green
		case strings.HasPrefix(l, "-"):
			style = red
		case strings.HasPrefix(l, "@@"):
			style = cyan
		}
		l = strings.TrimSuffix(l, "\n")
		if style != "" {
			l = p.paint(style, l)
		}
		p.line("%s", l)
	}
}

// ask prints a question and reads a one-word answer.
func (p *printer) ask(in *bufio.Reader, q string) (string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
	fmt.Fprint(p.w, q)
	s, err := in.ReadString('\n')
	if err != nil && s == "" {
		fmt.Fprintln(p.w)
		return "", err
	}
	return strings.ToLower(strings.TrimSpace(s)), nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isTerminal reports whether w is a character device (a terminal).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
