package main

import (
	"bufio"
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
)

// termApprover asks on the terminal before a risky action (a shell
// command): y allows it once, a allows its commands for the rest of the
// run, anything else denies it. --yes approves nothing risky: it applies
// edits, and runs only the commands a policy rule allows.
type termApprover struct {
	yes  bool
	in   *bufio.Reader
	p    *printer
	eng  *policy.Engine
	root string // where "always" answers apply
}

func (t *termApprover) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	if err := ctx.Err(); err != nil {
		return false, err
	}
	what := "use " + ap.Tool
	if ap.Command != "" {
		what = fmt.Sprintf("run `%s` in %s", ap.Command, ap.Dir)
	}
	if t.yes {
		t.p.mu.Lock()
		t.p.line("%s", t.p.paint(red, "✗ Denied: "+what+" (--yes applies edits; commands need a rule in .agentls/policy.toml or an answer on the terminal)"))
		t.p.mu.Unlock()
		return false, nil
	}
	prefixes := policy.Prefixes(ap.Command)
	q := strings.ToUpper(what[:1]) + what[1:] + "?"
	if ap.Description != "" {
		q += " (" + ap.Description + ")"
	}
	if len(prefixes) > 0 {
		q += fmt.Sprintf(" [y = once, a = always allow %s, n = no] ", strings.Join(prefixes, ", "))
	} else {
		q += " [y/n] "
	}
	answer, err := t.p.ask(t.in, q)
	if err != nil {
		return false, nil // no answer on the terminal: not allowed
	}
	switch answer {
	case "y", "yes":
		return true, nil
	case "a", "always":
		if len(prefixes) == 0 {
			return false, nil
		}
		t.eng.AllowAlways(prefixes, t.root) // on failure it is allowed once
		return true, nil
	}
	return false, nil
}
