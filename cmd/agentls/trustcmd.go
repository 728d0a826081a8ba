package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"path/filepath"

	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/runner"
)

// trustCmd shows the allow rules of a workspace's policy file and trusts
// the file, as it is now, when the user says y. Trust is bound to the
// file's content: a changed file needs it again.
func trustCmd(args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	yes := fs.Bool("yes", false, "trust without asking (after showing the rules)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: agentls trust [--workspace DIR] [--yes]\n")
		fs.PrintDefaults()
	}
	if _, code, ok := parseFlags(fs, args, stdout); !ok {
		return code
	}
	root, err := filepath.Abs(*dir)
	if err == nil {
		root, err = filepath.EvalSymlinks(root)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	file := userPolicyFile(e)
	if file == "" {
		fmt.Fprintln(stderr, "agentls: there is no user configuration folder to keep the trust in (set HOME or XDG_CONFIG_HOME)")
		return exitUsage
	}
	eng := policy.New(file)
	if err := eng.Load([]string{root}); err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
	}
	st, err := eng.TrustState(root)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	if st.Hash == "" {
		fmt.Fprintf(stderr, "agentls: %s has no configuration of its own to trust (%s, %s)\n", root, st.File, policy.WorkspaceSettingsFile(root))
		return exitUsage
	}
	if st.Trusted {
		fmt.Fprintf(stdout, "The configuration of %s is trusted as it is.\n", root)
		return 0
	}
	p := newPrinter(stdout, isTerminal(stdout))
	if lines := runner.TrustSummary(st); len(lines) == 0 {
		p.say("The configuration of %s switches nothing on; its deny and ask rules apply anyway.", root)
	} else {
		p.say("Once you trust the configuration of %s, it will:", root)
		for _, l := range lines {
			shown, _ := edits.VisibleLine(l)
			p.say("  %s", shown)
		}
	}
	if !*yes {
		answer, err := p.ask(context.Background(), newLines(stdin), "Trust it as it is now? [y/n] ", "y = trust it, n = do not", nil)
		if err != nil || answer != answerYes {
			if errors.Is(err, errNoAnswer) || err == nil {
				p.say("Not trusted.")
			}
			return exitError
		}
	}
	if err := eng.Trust(root, st.Hash); err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	p.say("Trusted the configuration of %s. A change to .agentls/policy.toml or .agentls/settings.json needs trust again.", root)
	return 0
}
