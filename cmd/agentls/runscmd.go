package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/edits"
)

// runsCmd lists recent runs from their traces, the newest first.
func runsCmd(args []string, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("runs", flag.ContinueOnError)
	fs.SetOutput(stderr)
	ws := fs.String("workspace", "", "list only the runs in this workspace folder")
	n := fs.Int("n", 20, "how many runs to list")
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	dir, err := trace.Dir(e.get)
	if err != nil || dir == "" {
		fmt.Fprintf(stderr, "agentls: no traces: %v\n", cmpErr(err, errors.New(trace.EnvDir+" is off")))
		return exitUsage
	}
	root := ""
	if *ws != "" {
		if root, err = filepath.Abs(*ws); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return exitUsage
		}
		if r, err := filepath.EvalSymlinks(root); err == nil {
			root = r
		}
	}
	files, err := trace.List(dir, root)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	if len(files) == 0 {
		fmt.Fprintf(stdout, "No runs traced in %s yet.\n", dir)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "TIME\tRUN\tSTOP\tTOKENS\tCOST\tWORKSPACE\tTASK")
	for _, f := range files[:min(*n, len(files))] {
		t, err := trace.Load(f.Path)
		if err != nil {
			fmt.Fprintf(tw, "%s\t%s\t%s\t\t\t\t\n", f.ModTime.Local().Format("2006-01-02 15:04"), strings.TrimSuffix(filepath.Base(f.Path), ".jsonl"), "unreadable")
			continue
		}
		s := trace.Summarize(t)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\t%s\t%s\n", s.Started.Local().Format("2006-01-02 15:04"), s.RunID, stop(s),
			tokens(s.Usage), runCost(s), home(s.Workspace, e), shorten(s.Task, 50))
	}
	tw.Flush()
	return 0
}

func cmpErr(err, alt error) error {
	if err != nil {
		return err
	}
	return alt
}

// stop is a run's stop reason, or what became of a run without one.
func stop(s trace.Summary) string {
	if s.Stop == "" {
		return "unfinished"
	}
	return string(s.Stop)
}

// home shortens a path in the user's home folder to ~/….
func home(p string, e env) string {
	if h := e.get("HOME"); h != "" {
		if rel, err := filepath.Rel(h, p); err == nil && !strings.HasPrefix(rel, "..") {
			return filepath.Join("~", rel)
		}
	}
	return p
}

// traceCmd is agentls trace show FILE|RUNID.
func traceCmd(args []string, stdout, stderr io.Writer, e env) int {
	if len(args) != 2 || args[0] != "show" {
		fmt.Fprintln(stderr, "usage: agentls trace show TRACE|RUNID")
		return exitUsage
	}
	path := args[1]
	if _, err := os.Stat(path); err != nil {
		if found, ok := findRun(path, e); ok {
			path = found
		}
	}
	t, err := trace.Load(path)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	showSummary(stdout, path, trace.Summarize(t))
	return 0
}

// findRun finds the trace of a run id in the state directory.
func findRun(runID string, e env) (string, bool) {
	dir, err := trace.Dir(e.get)
	if err != nil || dir == "" {
		return "", false
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*", filepath.Base(runID)+".jsonl"))
	if len(paths) == 0 {
		return "", false
	}
	return paths[0], true
}

func showSummary(w io.Writer, path string, s trace.Summary) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Trace\t%s\n", path)
	fmt.Fprintf(tw, "Run\t%s, started %s, ran %s\n", s.RunID, s.Started.Local().Format("2006-01-02 15:04:05"), s.Duration.Round(time.Millisecond))
	fmt.Fprintf(tw, "Workspace\t%s\n", s.Workspace)
	fmt.Fprintf(tw, "Task\t%s\n", shorten(s.Task, 100))
	model := s.Model
	if s.Routed != nil {
		model += fmt.Sprintf(" → %s (%s)", s.Routed.Model, shorten(s.Routed.Reason, 60))
	}
	fmt.Fprintf(tw, "Model\t%s\n", model)
	stopLine := fmt.Sprintf("%s after %d turns", stop(s), s.Turns)
	if s.Error != "" {
		stopLine += ": " + shorten(s.Error, 100)
	}
	if s.Torn {
		stopLine += " (the trace's last line is cut short)"
	}
	fmt.Fprintf(tw, "Stop\t%s\n", stopLine)
	if s.Result != "" {
		fmt.Fprintf(tw, "Result\t%s\n", shorten(s.Result, 100))
	}
	fmt.Fprintf(tw, "Tokens\t%d prompt, %d output, %d thoughts, %d cached; %d model calls, %d retries\n",
		s.Usage.Prompt, s.Usage.Output, s.Usage.Thoughts, s.Usage.Cached, s.ModelCalls, s.Retries)
	fmt.Fprintf(tw, "Cost\t%s (estimated)\n", runCost(s))
	fmt.Fprintf(tw, "Decisions\tproposals: %s; approvals: %s; policy: %s\n", counts(s.Proposals), counts(s.Approvals), counts(s.Policy))
	for _, c := range s.Compressed {
		fmt.Fprintf(tw, "Compressed\t%s: %d → %d tokens\n", c.Method, c.Before, c.After)
	}
	if len(s.Skills) > 0 {
		fmt.Fprintf(tw, "Skills\t%s\n", strings.Join(s.Skills, ", "))
	}
	tw.Flush()

	// What did the model see for each call?
	fmt.Fprintf(w, "\nModel calls (%d)\n", len(s.Calls))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  CALL\tMODEL\tTOKENS\tCONTEXT FILES\tMEMORIES\tSKILLS")
	for _, c := range s.Calls {
		id := c.PromptID
		if c.Seq > 1 {
			id += fmt.Sprintf(" (%d)", c.Seq)
		}
		files := strings.Join(c.Context.Files, ", ")
		if files == "" {
			files = "-"
		}
		skills := strings.Join(c.Context.Skills, ", ")
		if skills == "" {
			skills = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%d\t%s\t%d\t%s\n", id, cmp.Or(c.Model, s.Model), c.Context.Tokens, shorten(files, 60), c.Context.Memories, skills)
	}
	tw.Flush()

	calls := slices.DeleteFunc(slices.Clone(s.Tools), func(c trace.ToolSummary) bool { return c.Name == agent.CompleteTaskName })
	fmt.Fprintf(w, "\nTool calls (%d)\n", len(calls))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  TURN\tAGENT\tTOOL\tTIME\tDECISION\tRESULT")
	for _, c := range calls {
		result := c.Result
		switch {
		case !c.Done:
			result = c.Display + " (no result: the run stopped)"
		case result == "" && c.IsError:
			result = "error"
		case result == "":
			result = c.Display
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%s\n", c.Turn, c.Agent, c.Name, duration(c.Duration), decision(c), shorten(result, 70))
	}
	tw.Flush()
	if len(s.Subagents) > 0 {
		fmt.Fprintf(w, "\nSubagents (%d)\n", len(s.Subagents))
		for _, a := range s.Subagents {
			end := "unfinished"
			if a.End != nil {
				end = fmt.Sprintf("%s after %d turns", a.End.Reason, a.End.Turns)
			}
			fmt.Fprintf(w, "  %s: %s — %s\n", a.RunID, end, shorten(a.Task, 60))
		}
	}
}

// duration prints a tool call's duration, to the millisecond.
func duration(d time.Duration) string {
	if d > 0 && d < time.Millisecond {
		return "<1ms"
	}
	return d.Round(time.Millisecond).String()
}

// decision says who decided what about a tool call: the policy, the
// user, the proposal's outcome.
func decision(c trace.ToolSummary) string {
	var parts []string
	switch {
	case c.Verdict == agent.VerdictDeny:
		parts = append(parts, "policy denied ("+c.Rule+")")
	case c.Verdict == agent.VerdictAsk && c.Approved == nil:
		parts = append(parts, "asked, no answer")
	case c.Approved != nil:
		parts = append(parts, map[bool]string{true: "user allowed", false: "user denied"}[*c.Approved])
	case c.Verdict == agent.VerdictAllow && c.Rule != "" && !strings.HasPrefix(c.Rule, "default"):
		parts = append(parts, "rule allowed ("+c.Rule+")")
	}
	if c.Outcome != "" {
		parts = append(parts, string(c.Outcome))
	}
	if len(parts) == 0 {
		return "-"
	}
	for i, p := range parts {
		parts[i], _ = edits.VisibleLine(p) // a rule's name may come from a repository's policy file
	}
	return strings.Join(parts, ", ")
}

// counts prints a tally as "2 applied, 1 rejected", or "none".
func counts[K ~string](m map[K]int) string {
	var parts []string
	for k, n := range m {
		if n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, k))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

// runCost is a traced run's estimated cost: what its run_end said; "-"
// for a run that did not end (its calls were never priced).
func runCost(s trace.Summary) string {
	if s.Stop == "" {
		return "-"
	}
	return cost(s.Usage)
}
