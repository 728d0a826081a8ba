package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/edits"
)

// termApprover asks on the terminal before a risky action (a shell
// command, an MCP tool, a web fetch): y allows it once, a allows its command
// prefixes (the MCP server's tool, the web hosts) for the rest of the
// session (the policy engine's AllowAlways), n denies it, d shows it
// whole, q stops the run. --yes approves nothing risky: it applies edits,
// and runs only the commands a policy rule allows.
type termApprover struct {
	yes  bool
	in   *lines
	p    *printer
	eng  *policy.Engine
	root string // where "always" answers apply
	quit func()
}

func (t *termApprover) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	if ap.Kind == agent.ApprovalLoop {
		return t.keepGoing(ctx, ap)
	}
	what, lines, hidden := "use "+ap.Tool, []string(nil), false
	if ap.Command != "" {
		cmd, h := edits.Visible(strings.TrimRight(ap.Command, "\n"))
		lines, hidden = strings.Split(cmd, "\n"), h
		what = fmt.Sprintf("run `%s` in %s", lines[0], visible(ap.Dir))
		if len(lines) > 1 {
			what = fmt.Sprintf("run this command of %d lines in %s", len(lines), visible(ap.Dir))
		}
	}
	if ap.Server != "" {
		q := mcp.Question(ap, 300) // d shows the arguments whole
		what = "a" + strings.TrimSuffix(strings.TrimPrefix(q, "A"), "?")
	}
	if t.yes {
		t.p.say("%s", t.p.paint(red, "✗ Denied: "+what+" (--yes runs only the commands, web fetches and MCP calls an allow rule names: add one to your own policy file, "+
			"or to "+relPolicyFile+", which has no effect until you trust the folder with agentls trust)"))
		return false, nil
	}
	allow, ok := policy.AlwaysFor(ap, t.root)
	q := strings.ToUpper(what[:1]) + what[1:] + "?"
	if len(lines) > 1 {
		q += "\n    " + strings.Join(lines, "\n    ") + "\n"
	}
	if hidden {
		q += t.p.paint(red, " Warning: the command holds control or invisible characters, shown escaped.") + "\n"
	}
	if ap.Description != "" {
		q += " (" + visible(ap.Description) + ")"
	}
	// Without a rule narrow enough to remember, a allows it once, and says so.
	always := "a = allow it once (no rule narrow enough to remember it by)"
	if ok {
		always = "a = always allow " + allow.Quoted() + " for this session"
	}
	q += " [y/n/a/d/q] "
	help := "y = allow it once, n = deny it, " + always + ", d = show the command in full, q = stop the run"
	answer, err := t.p.ask(ctx, t.in, q, help, func() { t.details(ap, allow, ok) })
	switch {
	case errors.Is(err, errNoAnswer):
		return false, nil // no answer on the terminal: not allowed
	case err != nil:
		return false, err
	}
	switch answer {
	case answerYes:
		return true, nil
	case answerAlways:
		if !ok {
			return true, nil // nothing to remember: allowed once
		}
		t.eng.AllowAlways(allow) // on failure it is allowed once
		return true, nil
	case answerQuit:
		t.quit()
		return false, context.Canceled
	}
	return false, nil
}

// keepGoing asks whether a run whose model repeats itself goes on. --yes
// asks no one: the run stops, as it does where no one can answer.
func (t *termApprover) keepGoing(ctx context.Context, ap agent.Approval) (bool, error) {
	if t.yes {
		t.p.say("%s", t.p.paint(red, "✗ "+ap.Description+" No (--yes): the run stops."))
		return false, nil
	}
	answer, err := t.p.ask(ctx, t.in, ap.Description+" [y/n] ", "y = keep going, n = stop the run", nil)
	switch {
	case errors.Is(err, errNoAnswer):
		return false, nil
	case err != nil:
		return false, err
	}
	return answer == answerYes, nil
}

// details shows an approval in full; the printer's lock is held.
func (t *termApprover) details(ap agent.Approval, allow policy.Always, ok bool) {
	t.p.line("  tool:    %s", ap.Tool)
	if ap.Server != "" {
		t.p.line("  %s", mcp.Question(ap, 0))
	}
	if ap.Command != "" {
		cmd, _ := edits.Visible(ap.Command)
		t.p.line("  command: %s", strings.ReplaceAll(cmd, "\n", "\n           "))
		t.p.line("  folder:  %s", visible(ap.Dir))
	}
	if ap.Description != "" {
		t.p.line("  why:     %s", visible(ap.Description))
	}
	switch {
	case ok && allow.Server != "":
		t.p.line("  always:  allows %s (of that server only) for this session", allow.Quoted())
	case ok && len(allow.Hosts) > 0:
		t.p.line("  always:  allows fetches from %s (not their subdomains) for this session", allow.Quoted())
	case ok:
		t.p.line("  always:  allows commands starting with %s in %s for this session", allow.Quoted(), visible(t.root))
	case ap.Command != "":
		if why := policy.ParseCommand(ap.Command).Complex; why != "" {
			t.p.line("  always:  not offered: %s", visible(why))
		}
	}
}
