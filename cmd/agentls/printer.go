package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/edits"
)

// printer shows a run's events on a terminal. Events come from the run's
// goroutine, questions from tool goroutines, spinner frames from the
// spinner's: all of them write under mu.
type printer struct {
	w        io.Writer
	color    bool
	replay   bool // the run is a replay: shell results are recorded ones
	maxTurns int  // the run's turn limit, to tell it from the time limit; 0: unknown

	mu       sync.Mutex
	subject  string // the last thought subject shown
	inText   bool   // a text chunk line is open
	status   string // what the spinner says the run is doing
	spinning bool   // a spinner frame is on the screen
	frame    int
	final    bool // the run is in its final warning turn, after a limit
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

// maxDiffLines is how much of a diff a proposal shows; d shows the rest.
const maxDiffLines = 60

func (p *printer) paint(style, s string) string {
	if !p.color {
		return s
	}
	return style + s + reset
}

// line writes one line; p.mu is held.
func (p *printer) line(format string, args ...any) {
	p.clearSpinner()
	if p.inText {
		fmt.Fprintln(p.w)
		p.inText = false
	}
	fmt.Fprintf(p.w, format+"\n", args...)
}

// say writes one line, taking p.mu.
func (p *printer) say(format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line(format, args...)
}

func (p *printer) event(ev agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.show(ev, "")
}

// show writes an event; a subagent's events are drawn in its box, one
// level of indent per nesting.
func (p *printer) show(ev agent.Event, indent string) {
	switch ev.Type {
	case agent.EventTurnStart:
		if indent == "" {
			p.status = "Thinking"
			p.final = p.final || ev.Text == "final warning"
		}
	case agent.EventThought:
		if ev.Subject != "" && ev.Subject != p.subject {
			p.subject = ev.Subject
			p.status = visible(ev.Subject)
			p.line("%s%s", indent, p.paint(dim, "· "+visible(ev.Subject)))
		}
	case agent.EventText:
		if indent != "" {
			return // a subagent's answer reaches its parent as the tool's result
		}
		p.clearSpinner()
		text, _ := edits.Visible(ev.Text)
		fmt.Fprint(p.w, text)
		p.inText = !strings.HasSuffix(ev.Text, "\n")
	case agent.EventToolCall:
		if ev.Call.Name == agent.CompleteTaskName {
			return
		}
		what := ev.Call.Display
		if what == "" {
			what = ev.Call.Name + " " + string(ev.Call.Args)
		}
		what = visible(what)
		p.status = what
		p.line("%s%s %s", indent, p.paint(cyan, "→"), what)
	case agent.EventToolResult:
		note := ""
		if p.replay && trace.IsSideEffecting(ev.Call.Name) {
			note = " (recorded; not run)"
		}
		switch {
		case ev.Call.Name == agent.CompleteTaskName:
		case ev.Result.IsError && ev.Result.Output == context.Canceled.Error():
			p.line("%s  %s", indent, p.paint(red, "✗ cancelled"))
		case ev.Result.IsError:
			p.line("%s  %s", indent, p.paint(red, "✗ "+visible(firstLine(ev.Result.Output))))
		case ev.Call.Name == "run_shell_command" && commandFailed(ev.Result.Output):
			p.line("%s  %s", indent, p.paint(red, "✗ "+visible(ev.Result.Display)+note))
			p.output(indent+"    ", ev.Result.Output)
		case ev.Result.Display != "":
			p.line("%s  %s", indent, p.paint(dim, "✓ "+visible(ev.Result.Display)+note))
		}
	case agent.EventApprovalDecided:
		if p.replay && ev.Approval.Allowed != nil {
			p.line("%s  %s: %s", indent, action(*ev.Approval), map[bool]string{true: "allowed", false: "denied"}[*ev.Approval.Allowed]+" (as recorded)")
		}
	case agent.EventEditProposed:
		p.line("%sProposed change to %s (+%d −%d):", indent, visible(ev.Edit.Name), ev.Edit.Added, ev.Edit.Deleted)
		p.diff(ev.Edit.Diff, maxDiffLines)
	case agent.EventEditDecided:
		p.line("%s  change to %s: %s", indent, visible(ev.Edit.Name), ev.Edit.Outcome)
	case agent.EventSubagentStart:
		p.line("%s%s %s", indent, p.paint(cyan, "┌─ "+ev.Subagent.Agent+":"), visible(shorten(ev.Subagent.Task, 70)))
	case agent.EventSubagentActivity:
		if ev.Inner != nil {
			p.show(*ev.Inner, indent+p.paint(cyan, "│ "))
		}
	case agent.EventSubagentEnd:
		end := ev.Subagent.End
		msg := fmt.Sprintf("%s (%d turns)", end.Reason, end.Turns)
		if end.Reason != agent.StopGoal && end.Error != "" {
			msg += ": " + visible(end.Error)
		}
		p.line("%s%s %s", indent, p.paint(cyan, "└─ "+ev.Subagent.Agent+":"), msg)
	case agent.EventModelRouted:
		p.line("%s%s", indent, p.paint(dim, fmt.Sprintf("· model %s: %s", ev.Routed.Model, ev.Routed.Reason)))
	case agent.EventCompressed:
		c := ev.Compressed
		p.line("%s%s", indent, p.paint(dim, fmt.Sprintf("· history compressed (%s): %d → %d tokens", c.Method, c.Before, c.After)))
	case agent.EventWarning:
		p.line("%s%s", indent, p.paint(red, "⚠ "+visible(ev.Text)))
	case agent.EventRetry:
		r := ev.Retry
		p.line("%s%s", indent, p.paint(dim, fmt.Sprintf("· %s: %s", r.Summary(), visible(firstLine(r.Error)))))
	case agent.EventRunEnd:
		if indent != "" {
			return
		}
		p.status = ""
		p.line("")
		result, _ := edits.Visible(ev.End.Result)
		switch {
		case ev.End.Reason == agent.StopGoal && p.final:
			p.line("%s\n%s", p.paint(bold+green, "✓ Done in a final turn, "+p.limit(ev.End.Turns)+": the answer may leave work undone"), result)
		case ev.End.Reason == agent.StopGoal:
			p.line("%s\n%s", p.paint(bold+green, "✓ Done"), result)
		case ev.End.Reason == agent.StopAborted:
			p.line("%s", p.paint(bold+red, "✗ Cancelled: the run was stopped before it finished"))
		default:
			p.line("%s %s", p.paint(bold+red, "✗ Stopped: "+string(ev.End.Reason)), visible(ev.End.Error))
		}
		if ev.End.Reason == agent.StopBudget && result != "" {
			p.line("%s", result)
		}
		if ev.Usage != nil {
			p.line("%s", p.paint(dim, fmt.Sprintf("%d turns, tokens: %d prompt (%d cached), %d output, %d thoughts; estimated cost %s",
				ev.End.Turns, ev.Usage.Prompt, ev.Usage.Cached, ev.Usage.Output, ev.Usage.Thoughts, cost(*ev.Usage))))
		}
	}
}

// diff prints a unified diff, coloured on a terminal, cut after max lines
// (0: all of it).
func (p *printer) diff(d string, max int) {
	lines := strings.SplitAfter(strings.TrimSuffix(d, "\n"), "\n")
	for i, l := range lines {
		if max > 0 && i == max {
			p.line("%s", p.paint(dim, fmt.Sprintf("… %d more lines (answer d to see the whole diff)", len(lines)-max)))
			return
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
		l, _ = edits.Visible(strings.TrimSuffix(l, "\n"))
		if style != "" {
			l = p.paint(style, l)
		}
		p.line("%s", l)
	}
}

// action names an approval's action for the user.
func action(ap agent.Approval) string {
	if ap.Command != "" {
		return visible(fmt.Sprintf("`%s` in %s", ap.Command, ap.Dir))
	}
	if ap.Description != "" {
		return visible(ap.Description)
	}
	return ap.Tool
}

// visible is s on one line, with what could change the screen unseen
// escaped (edits.VisibleLine): model text never moves the cursor, clears a
// line or turns text around.
func visible(s string) string {
	shown, _ := edits.VisibleLine(s)
	return shown
}

// limit says why a run that took turns turns had a final warning turn.
func (p *printer) limit(turns int) string {
	if p.maxTurns > 0 && turns > p.maxTurns {
		return fmt.Sprintf("after the run reached its limit of %d turns", p.maxTurns)
	}
	return "after the run stopped early (its time limit, or a turn that called no tool)"
}

// maxOutputLines is how much of a failed command's output is shown.
const maxOutputLines = 20

// commandFailed reports whether a run_shell_command result tells of a
// command that did not succeed: a non-zero exit code or a signal.
func commandFailed(output string) bool {
	first := firstLine(output)
	return strings.HasPrefix(first, "Exit code: ") && first != "Exit code: 0" ||
		strings.HasPrefix(first, "The command was killed")
}

// output shows the last lines of a command's output, as the tool reported
// it ("Output:" and what follows), indented; p.mu is held.
func (p *printer) output(indent, result string) {
	_, out, ok := strings.Cut(result, "Output:")
	out = strings.Trim(out, "\n ")
	if !ok || out == "" || out == "(none)" {
		return
	}
	lines := strings.Split(out, "\n")
	if len(lines) > maxOutputLines {
		p.line("%s%s", indent, p.paint(dim, fmt.Sprintf("… %d lines before", len(lines)-maxOutputLines)))
		lines = lines[len(lines)-maxOutputLines:]
	}
	for _, l := range lines {
		p.line("%s%s", indent, visible(l))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// shorten returns s on one line, at most n characters.
func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// isTerminal reports whether f is a character device (a terminal).
func isTerminal(f any) bool {
	file, ok := f.(*os.File)
	if !ok {
		return false
	}
	fi, err := file.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
