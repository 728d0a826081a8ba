package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
)

// replayCmd runs a recorded run again: the model's answers and the shell
// commands' results come from the trace, so no model is called and no
// command runs. Changes are shown as diffs, and applied in memory (with
// --apply, to a scratch copy of the workspace): the recorded workspace is
// never written.
func replayCmd(ctx context.Context, args []string, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("replay", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", "", "the workspace to replay on (default: the recorded one); it is never written")
	apply := fs.Bool("apply", false, "apply the changes to a scratch copy of the workspace, and keep it")
	jsonOut := fs.Bool("json", false, "print the run's events as JSON Lines on stdout, and nothing else")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: agentls replay [flags] TRACE\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(reorder(args, "apply", "json")); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	tr, err := trace.Load(fs.Arg(0))
	if err != nil {
		fmt.Fprintf(stderr, "agentls: replay: %v\n", err)
		return exitUsage
	}
	if *dir == "" {
		*dir = tr.Header.Workspace
	}
	if fi, err := os.Stat(*dir); err != nil || !fi.IsDir() {
		fmt.Fprintf(stderr, "agentls: replay: the workspace %s is not a folder; name one with --workspace\n", *dir)
		return exitUsage
	}

	ui := newUI(stdout, stderr, *jsonOut)
	ui.ask.replay = true
	root := *dir
	if *apply {
		if root, err = scratchCopy(root); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return exitError
		}
	}
	b, err := newBench(root, e, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	var applier agent.Proposer = overlayProposer{ws: b.ws}
	where := "in memory; nothing is written"
	if *apply {
		// Only the scratch copy is written: a change elsewhere (a fact for
		// the user's own AGENTS.md) applies in memory.
		applier, where = scratchProposer{root: root, disk: diskProposer{}, mem: applier}, "to a scratch copy of "+*dir+": "+root
	}
	fmt.Fprintf(ui.msg, "Replaying %s (%s): no model call, no command runs; changes apply %s\n\n", fs.Arg(0), tr.Header.RunID, where)

	spec := b.spec()
	spec.Proposer = applier
	spec.Settings = contract.DefaultSettings()
	run, rp := newHost(e, "", stderr).Replay(tr, spec)
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	rp.SetAbort(cancel)

	end := ui.run(run.Events(runCtx), stderr)
	code := exitCode(end.Reason)
	if d := rp.Diverged(); d != nil {
		fmt.Fprintf(ui.msg, "\n%s at %s\n  recorded: %s\n  now:      %s\n", ui.ask.paint(bold+red, "✗ The replay diverged from the recording"),
			d.Where, indent(d.Recorded, "            "), indent(d.Now, "            "))
		code = exitDiverged
	} else {
		recorded := "unfinished"
		if re := tr.End(); re != nil {
			recorded = string(re.End.Reason)
		}
		fmt.Fprintf(ui.msg, "%s\n", ui.ask.paint(dim, fmt.Sprintf("The replay followed the recording (recorded stop: %s).", recorded)))
	}
	if *apply {
		fmt.Fprintf(ui.msg, "\nThe scratch copy is in %s\n", root)
	}
	return code
}

// indent puts prefix before every line of s but the first.
func indent(s, prefix string) string {
	return strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+prefix)
}

// reorder moves the arguments after the first positional one that are
// flags before it, so that "replay FILE --apply" parses as "replay --apply
// FILE". bools names the flags that take no value.
func reorder(args []string, bools ...string) []string {
	var flags, pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			pos = append(pos, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "-") && len(a) > 1:
			flags = append(flags, a)
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && !slices.Contains(bools, name) && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			pos = append(pos, a)
		}
	}
	return append(flags, pos...)
}
