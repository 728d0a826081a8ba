package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/agent/trace"
)

func runCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	model := fs.String("model", "gemini-2.5-flash", `the model; "auto" picks one per run`)
	yes := fs.Bool("yes", false, "apply every proposed change to disk without asking (commands still need a rule)")
	jsonOut := fs.Bool("json", false, "print the run's events as JSON Lines on stdout, and nothing else")
	maxTurns := fs.Int("max-turns", agent.DefaultMaxTurns, "the turn limit")
	tracePath := fs.String("trace", "", "write the run's trace to this file instead of the state directory")
	fs.StringVar(tracePath, "record", "", "the same as --trace")
	scratch := fs.Bool("scratch", false, "work on a temporary copy of the workspace, never on the original")
	replay := fs.String("replay", "", "the same as agentls replay FILE (--scratch: --apply)")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: agentls run [flags] \"PROMPT\"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if *replay != "" {
		rargs := []string{"--workspace", *dir}
		if *scratch {
			rargs = append(rargs, "--apply")
		}
		if *jsonOut {
			rargs = append(rargs, "--json")
		}
		return replayCmd(ctx, append(rargs, *replay), stdout, stderr, e)
	}
	prompt := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if prompt == "" {
		fs.Usage()
		return exitUsage
	}
	m, err := newModel(ctx, *model, e.get)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}

	ui := newUI(stdout, stderr, *jsonOut)
	root := *dir
	if *scratch {
		if root, err = scratchCopy(root); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return exitError
		}
		fmt.Fprintf(ui.msg, "Working on a scratch copy of %s: %s\n\n", *dir, root)
	}
	b, err := newBench(root, e, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	runID := trace.NewRunID("main")
	tw, twPath := openTrace(*tracePath, b.root, runID, e, stderr)
	var pol agent.Policy = b.pol
	if tw != nil {
		m, pol = tw.Model(m), tw.Policy(b.pol)
	}

	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := newLines(stdin)
	prop := &termProposer{p: ui.ask, in: in, apply: *yes, quit: cancel}
	env := tools.Env{FS: b.fs, Proposer: prop, Mode: b.pol.Mode(), Policy: b.pol, Secrets: apiKeys(e)}
	defs := b.agents(e, stderr)
	cfg := agent.Config{
		Model:       m,
		Agent:       agent.Definition{Name: "main", MaxTurns: *maxTurns},
		Tools:       append(tools.Builtin(env), b.subagentTools(defs, m, pol)...),
		Context:     b.context,
		Environment: b.env,
		Policy:      pol,
		Approver:    &termApprover{yes: *yes, in: in, p: ui.ask, eng: b.engine, root: b.root, quit: cancel},
		RunID:       runID,
	}
	if *model == agent.ModelAuto {
		cfg.Agent.Model = agent.ModelAuto // the harness routes the run
	}
	task := agent.Task{Prompt: prompt}
	events := agent.Run(runCtx, cfg, task)
	if tw != nil {
		h := trace.Header{Version: version, Workspace: b.root, Model: *model,
			Settings: map[string]any{"yes": *yes, "json": *jsonOut, "maxTurns": *maxTurns, "scratch": *scratch, "approvalMode": string(policy.ModeDefault)}}
		for _, d := range defs {
			h.Subagents = append(h.Subagents, trace.NewAgentDef(d))
		}
		events = tw.Run(runCtx, cfg, task, h)
	}
	end := ui.run(events, stderr)
	if tw != nil {
		if err := tw.Close(); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
		}
		fmt.Fprintf(ui.msg, "%s\n", ui.ask.paint(dim, "Trace: "+twPath))
		if *tracePath == "" {
			pruneTraces(ctx, e, stderr)
		}
	}
	if *scratch {
		fmt.Fprintf(ui.msg, "\nThe scratch copy is in %s\n", root)
	}
	return exitCode(end.Reason)
}

// apiKeys are the model's keys: no shell command sees them, no trace holds
// them.
func apiKeys(e env) []string {
	return []string{e.get("GEMINI_API_KEY"), e.get("GOOGLE_API_KEY")}
}

// openTrace opens the run's trace: at path if given, else in the user's
// state directory. A trace that cannot be written is reported and the run
// goes on without one.
func openTrace(path, root, runID string, e env, warn io.Writer) (*trace.Writer, string) {
	if path == "" {
		dir, err := trace.Dir(e.get)
		if err != nil {
			fmt.Fprintf(warn, "agentls: the run is not traced: %v\n", err)
			return nil, ""
		}
		if dir == "" {
			return nil, "" // tracing is off
		}
		path = trace.Path(dir, root, runID)
	}
	w, err := trace.Create(path, trace.Options{Secrets: append(trace.SecretValues(e), apiKeys(e)...)})
	if err != nil {
		fmt.Fprintf(warn, "agentls: the run is not traced: %v\n", err)
		return nil, ""
	}
	return w, path
}

// pruneTraces deletes, once the run is over, the traces the retention the
// server last used (or the default) does not keep.
func pruneTraces(ctx context.Context, e env, warn io.Writer) {
	dir, err := trace.Dir(e.get)
	if err != nil || dir == "" {
		return
	}
	if _, err := trace.PruneTraces(ctx, dir, trace.LoadRetention(dir), time.Now()); err != nil {
		fmt.Fprintf(warn, "agentls: pruning traces: %v\n", err)
	}
}

// scratchCopy copies the folder dir to a new temporary folder.
func scratchCopy(dir string) (string, error) {
	tmp, err := os.MkdirTemp("", "agentls-scratch-")
	if err != nil {
		return "", err
	}
	if err := os.CopyFS(tmp, os.DirFS(dir)); err != nil {
		os.RemoveAll(tmp)
		return "", fmt.Errorf("copy workspace: %w", err)
	}
	return tmp, nil
}

// ui is where a run is shown: events on the terminal (or as JSON Lines
// with --json), questions and messages beside them.
type ui struct {
	show  func(agent.Event)
	ask   *printer  // questions; with --json, on stderr
	msg   io.Writer // messages besides events; with --json, stderr
	spins bool
}

func newUI(stdout, stderr io.Writer, jsonOut bool) *ui {
	if jsonOut {
		j := newJSONPrinter(stdout)
		return &ui{show: j.event, ask: newPrinter(stderr, false), msg: stderr}
	}
	tty := isTerminal(stdout)
	p := newPrinter(stdout, tty)
	return &ui{show: p.event, ask: p, msg: stdout, spins: tty}
}

// run shows a run's events and returns how it ended.
func (u *ui) run(events func(func(agent.Event, error) bool), stderr io.Writer) agent.RunEnd {
	if u.spins {
		stop := u.ask.spin(100 * time.Millisecond)
		defer stop()
	}
	end := agent.RunEnd{Reason: agent.StopError}
	for ev, err := range events {
		if err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return end
		}
		u.show(ev)
		if ev.Type == agent.EventRunEnd && ev.End != nil {
			end = *ev.End
		}
	}
	return end
}
