package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// sessionStore is the store of the user's sessions; nil, with the reason,
// when there is no state directory or sessions are off.
func sessionStore(e env) (*session.Store, error) {
	dir, err := session.Dir(e.get)
	if err != nil {
		return nil, err
	}
	if dir == "" {
		return nil, errors.New(session.EnvDir + " is off")
	}
	return session.NewStore(dir, nil), nil
}

// sessionsOf is the session store and the workspace folder dir as runs
// record it; ok is false, and stderr says why, when either is missing.
func sessionsOf(e env, dir string, stderr io.Writer) (store *session.Store, root string, ok bool) {
	store, err := sessionStore(e)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: no sessions: %v\n", err)
		return nil, "", false
	}
	root, err = workspaceRoot(dir)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return nil, "", false
	}
	return store, root, true
}

// workspaceRoot is the workspace folder dir as runs record it.
func workspaceRoot(dir string) (string, error) {
	ws, err := workspace.New(dir)
	if err != nil {
		return "", err
	}
	return ws.Roots()[0], nil
}

// sessionsCmd lists the sessions of a workspace folder, the most recently
// updated first, or deletes one.
func sessionsCmd(args []string, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	runs := fs.Bool("runs", false, "list each session's runs too")
	del := fs.String("delete", "", "delete this session")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentls sessions [--workspace DIR] [--runs] [--delete ID]")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil || fs.NArg() > 0 {
		if err == nil {
			fs.Usage()
		}
		return exitUsage
	}
	store, root, ok := sessionsOf(e, *dir, stderr)
	if !ok {
		return exitUsage
	}
	if *del != "" {
		if err := store.Delete(root, *del); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return exitUsage
		}
		fmt.Fprintf(stdout, "Deleted session %s.\n", *del)
		return 0
	}
	infos, problems, err := store.List(root)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	if len(infos) == 0 && len(problems) == 0 {
		fmt.Fprintf(stdout, "No sessions in %s yet.\n", home(root, e))
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "UPDATED\tSESSION\tRUNS\tTOKENS\tCOST\tTITLE")
	for _, si := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\n", si.Updated.Local().Format("2006-01-02 15:04"), si.ID, len(si.Runs),
			tokens(si.Usage), cost(si.Usage), shorten(si.Title, 50))
		if *runs {
			for _, r := range si.Runs {
				fmt.Fprintf(tw, "\t  %s\t%s\t%d\t%s\t%s\n", r.ID, runState(r), tokens(r.Usage), cost(r.Usage), shorten(r.Prompt, 50))
			}
		}
	}
	tw.Flush()
	for _, p := range problems {
		fmt.Fprintf(stderr, "agentls: %v\n", p)
	}
	return 0
}

// runState is how a run of a session ended, and what became of its
// changes.
func runState(r session.RunInfo) string {
	s := "unfinished"
	if r.End != nil {
		s = string(r.End.Reason)
	}
	if r.Changes > 0 {
		s += fmt.Sprintf(", %d changes", r.Changes)
	}
	if r.Reverted {
		s += ", reverted"
	}
	return s
}

func tokens(u agent.Usage) int64 { return u.Prompt + u.Output + u.Thoughts + u.ToolUse }

// cost is a usage's estimated cost, "?" for a model without a price.
func cost(u agent.Usage) string {
	switch {
	case u.Unpriced && u.Cost == 0:
		return "?"
	case u.Unpriced:
		return agent.Dollars(u.Cost) + "+?"
	}
	return agent.Dollars(u.Cost)
}

// revertCmd undoes the changes of a run that the user accepted, on disk:
// it shows the revert as a diff and asks, like a proposal.
func revertCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("revert", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	yes := fs.Bool("yes", false, "revert without asking")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: agentls revert [--workspace DIR] [--yes] RUNID")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return exitUsage
	}
	runID := fs.Arg(0)
	store, root, ok := sessionsOf(e, *dir, stderr)
	if !ok {
		return exitUsage
	}
	info, err := store.FindRun([]string{root}, runID)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	w, err := store.Lock(info.Root, info.ID, trace.NewRunID("revert"))
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	defer w.Close()
	changes, err := w.Revertable(runID)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	files, err := session.PlanRevert(info.Root, changes, readDisk)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	p := newPrinter(stdout, isTerminal(stdout))
	p.say("%s", p.paint(bold, fmt.Sprintf("Revert run %s (session %s): %s", runID, info.ID, shorten(runPrompt(info, runID), 60))))
	outcomes := make([]session.RevertedFile, len(files))
	var pending []int
	for i, f := range files {
		if rf, ok := f.Settled(); ok {
			outcomes[i] = rf
			p.say("%s", p.paint(dim, fmt.Sprintf("· %s: %s (%s)", f.Name, rf.Outcome, rf.Message)))
			continue
		}
		pending = append(pending, i)
	}
	showDiff := func(max int) {
		for _, i := range pending {
			f := files[i]
			if f.Remove {
				p.say("%s", p.paint(bold+red, "delete "+f.Name))
				continue
			}
			p.diff(edits.Unified(f.Name, f.Current, f.Target), max)
			if len(f.Skipped) > 0 {
				p.say("%s", p.paint(dim, fmt.Sprintf("· %s: %s left as you changed it", f.Name, session.Spans(f.Skipped))))
			}
		}
	}
	revert := len(pending) > 0
	if revert && !*yes {
		showDiff(maxDiffLines)
		answer, err := p.ask(ctx, newLines(stdin), "Revert these changes? [y/n/d/q] ", "y = revert, n = leave the files as they are, d = show the whole diff, q = stop", func() { showDiff(0) })
		switch {
		case errors.Is(err, errNoAnswer):
			fmt.Fprintln(stderr, "agentls: no answer on the terminal (use --yes to revert without asking)")
			revert = false
		case err != nil:
			return exitError
		case answer == answerQuit:
			return exitError
		case answer != answerYes && answer != answerAlways:
			revert = false
		}
	}
	for _, i := range pending {
		f := files[i]
		switch {
		case !revert:
			outcomes[i] = session.RevertedFile{Name: f.Name, Outcome: session.Declined}
		default:
			outcomes[i] = applyRevert(f)
		}
	}
	if anyReverted(outcomes) {
		if err := w.Reverted(session.Revert{Run: runID, Files: outcomes}); err != nil {
			fmt.Fprintf(stderr, "agentls: the revert is not kept in the session: %v\n", err)
		}
	}
	summary := session.Summary(runID, outcomes)
	if len(pending) > 0 && !revert {
		summary = fmt.Sprintf("The revert of run %s was declined; nothing changed.", runID)
	}
	p.say("%s", summary)
	if !anyReverted(outcomes) {
		return exitError
	}
	return 0
}

// applyRevert writes one file's revert to disk, unless the file changed
// since the plan read it.
func applyRevert(f session.FileRevert) session.RevertedFile {
	now, exists, err := readDisk(f.Path)
	switch {
	case err != nil:
		return session.RevertedFile{Name: f.Name, Outcome: session.Failed, Message: err.Error()}
	case !exists || now != f.Current:
		return session.RevertedFile{Name: f.Name, Outcome: session.Conflict, Message: "changed meanwhile"}
	}
	if f.Remove {
		if err := os.Remove(f.Path); err != nil {
			return session.RevertedFile{Name: f.Name, Outcome: session.Failed, Message: err.Error()}
		}
		return f.Applied(true, false)
	}
	if err := runner.WriteAtomic(f.Path, f.Target); err != nil {
		return session.RevertedFile{Name: f.Name, Outcome: session.Failed, Message: err.Error()}
	}
	return f.Applied(false, false)
}

func readDisk(path string) (string, bool, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	return string(b), err == nil, err
}

func anyReverted(files []session.RevertedFile) bool {
	for _, f := range files {
		if f.Done() {
			return true
		}
	}
	return false
}

func runPrompt(info session.Info, runID string) string {
	for _, r := range info.Runs {
		if r.ID == runID {
			return strings.TrimSpace(r.Prompt)
		}
	}
	return ""
}
