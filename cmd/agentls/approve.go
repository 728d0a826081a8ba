package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
)

// termApprover asks on the terminal before a risky action (a shell
// command): y allows it once, a allows its command prefixes for the rest of
// the session (the policy engine's AllowAlways), n denies it, d shows it
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
	what := "use " + ap.Tool
	if ap.Command != "" {
		what = fmt.Sprintf("run `%s` in %s", firstLine(ap.Command), ap.Dir)
	}
	if t.yes {
		t.p.say("%s", t.p.paint(red, "✗ Denied: "+what+" (--yes applies edits; commands and web fetches need a rule in .agentls/policy.toml or an answer on the terminal)"))
		return false, nil
	}
	prefixes := policy.Prefixes(ap.Command)
	q := strings.ToUpper(what[:1]) + what[1:] + "?"
	if ap.Description != "" {
		q += " (" + ap.Description + ")"
	}
	always := "a = always allow this"
	if len(prefixes) > 0 {
		always = "a = always allow " + strings.Join(prefixes, ", ")
	}
	q += " [y/n/a/d/q] "
	help := "y = allow it once, n = deny it, " + always + " for this session, d = show the command in full, q = stop the run"
	answer, err := t.p.ask(ctx, t.in, q, help, func() { t.details(ap, prefixes) })
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
		if len(prefixes) == 0 {
			return true, nil // nothing to remember: allowed once
		}
		t.eng.AllowAlways(prefixes, t.root) // on failure it is allowed once
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
func (t *termApprover) details(ap agent.Approval, prefixes []string) {
	t.p.line("  tool:    %s", ap.Tool)
	if ap.Command != "" {
		t.p.line("  command: %s", strings.ReplaceAll(ap.Command, "\n", "\n           "))
		t.p.line("  folder:  %s", ap.Dir)
	}
	if ap.Description != "" {
		t.p.line("  why:     %s", ap.Description)
	}
	if len(prefixes) > 0 {
		t.p.line("  always:  allows commands starting with %s in %s for this session", strings.Join(prefixes, ", "), t.root)
	}
}
