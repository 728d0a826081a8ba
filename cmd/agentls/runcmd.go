package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
)

func runCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	model := fs.String("model", agent.DefaultModel, `the model; "auto" picks one per run (fast or strong, by the classifier)`)
	fast := fs.String("fast-model", agent.DefaultFastModel, `with --model auto: the model of simple tasks`)
	strong := fs.String("strong-model", agent.DefaultStrongModel, `with --model auto: the model of complex tasks`)
	classifier := fs.String("classifier-model", agent.DefaultClassifierModel, `with --model auto: the model that picks one`)
	loops := fs.Bool("loop-detection", true, "warn a model that repeats itself, then ask whether to go on (with --yes: stop)")
	webOn := fs.Bool("web", true, "offer web_fetch (each fetch asks; --yes denies it unless a rule allows the host) and google_web_search")
	private := fs.Bool("web-private-network", false, "let web_fetch reach loopback, private and link-local addresses, and plain http on localhost")
	yes := fs.Bool("yes", false, "apply every proposed change to disk without asking (commands still need a rule)")
	jsonOut := fs.Bool("json", false, "print the run's events as JSON Lines on stdout, and nothing else")
	maxTurns := fs.Int("max-turns", agent.DefaultMaxTurns, "the turn limit")
	tracePath := fs.String("trace", "", "write the run's trace to this file instead of the state directory")
	fs.StringVar(tracePath, "record", "", "the same as --trace")
	scratch := fs.Bool("scratch", false, "work on a temporary copy of the workspace, never on the original")
	replay := fs.String("replay", "", "the same as agentls replay FILE (--scratch: --apply)")
	cont := fs.Bool("continue", false, "follow up: continue the workspace's latest session")
	sessionID := fs.String("session", "", "follow up: continue this session (agentls sessions lists them)")
	budget := fs.Float64("max-budget", 0, "what the run may spend, in US dollars, estimated from its tokens (0: no limit)")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: agentls run [flags] \"PROMPT\" [flags]\n")
		fs.PrintDefaults()
	}
	words, code, ok := parseFlags(fs, args, stdout)
	if !ok {
		return code
	}
	if *maxTurns < 1 {
		fmt.Fprintf(stderr, "agentls: --max-turns must be 1 or more, not %d\n", *maxTurns)
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
	for _, f := range []struct{ name, value string }{{"fast-model", *fast}, {"strong-model", *strong}, {"classifier-model", *classifier}} {
		if strings.TrimSpace(f.value) == "" {
			fmt.Fprintf(stderr, "agentls: --%s must name a model\n", f.name)
			return exitUsage
		}
	}
	prompt := strings.TrimSpace(strings.Join(words, " "))
	if prompt == "" {
		fs.Usage()
		return exitUsage
	}
	quietSDKLog()
	ui := newUI(stdout, stderr, *jsonOut)
	ui.ask.maxTurns = *maxTurns
	root := *dir
	var err error
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
	if note := untrustedNote(b.engine, b.root); note != "" {
		fmt.Fprintf(ui.msg, "%s\n", ui.ask.paint(dim, note))
	}
	traceDir, err := trace.Dir(e.get)
	if err != nil && *tracePath == "" {
		fmt.Fprintf(stderr, "agentls: the run is not traced: %v\n", err)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	in := newLines(stdin)
	host := newHost(e, traceDir, stderr)
	// The run's warning events are printed with its other events: the
	// problems found while building it are not printed on stderr too. With
	// --json they go to stdout as events, and stderr says them to a person.
	host.ShowsWarnings = !*jsonOut
	spec := b.spec()
	spec.RunID = trace.NewRunID("main")
	w, err := openSession(host, e, b.root, *sessionID, *cont, spec.RunID, prompt)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	spec.Session = w
	spec.Proposer = &termProposer{p: ui.ask, in: in, apply: *yes, quit: cancel}
	spec.Approver = &termApprover{yes: *yes, in: in, p: ui.ask, eng: b.engine, root: b.root, quit: cancel}
	spec.Settings = userSettings(e, stderr)
	// A flag given wins over the settings file.
	fs.Visit(func(f *flag.Flag) {
		st := &spec.Settings
		switch f.Name {
		case "model":
			st.Model = *model
		case "max-turns":
			st.MaxTurns = *maxTurns
		case "fast-model":
			st.FastModel = *fast
		case "strong-model":
			st.StrongModel = *strong
		case "classifier-model":
			st.ClassifierModel = *classifier
		case "loop-detection":
			st.LoopDetection = *loops
		case "web":
			st.Web = *webOn
		case "web-private-network":
			st.WebPrivateNetwork = *private
		case "max-budget":
			st.MaxBudget = *budget
		}
	})
	spec.Task = agent.Task{Prompt: prompt}
	spec.TracePath = *tracePath
	spec.Record = map[string]any{"yes": *yes, "json": *jsonOut, "scratch": *scratch}
	host.MCP = mcp.New(mcp.Config{Environ: e, Secrets: host.Secrets, Version: version})
	defer host.MCP.Close() // every MCP server, with its process group
	defer host.Wait()      // the trace folder's prune, started with the run
	run, err := host.Build(ctx, spec)
	if err != nil {
		if w != nil {
			w.Close()
		}
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitUsage
	}
	end := ui.run(run.Events(runCtx), stderr)
	if run.TracePath != "" {
		fmt.Fprintf(ui.msg, "%s\n", ui.ask.paint(dim, "Trace: "+run.TracePath))
	}
	if id := run.SessionID(); id != "" && !*scratch {
		fmt.Fprintf(ui.msg, "%s\n", ui.ask.paint(dim, fmt.Sprintf("Session %s: follow up with agentls run --continue \"…\"; undo the run with agentls revert %s", id, spec.RunID)))
	}
	if *scratch {
		fmt.Fprintf(ui.msg, "\nThe scratch copy is in %s\n", root)
	}
	return exitCode(end.Reason)
}

// userSettings are the settings of the user's settings file over the
// defaults; its problems are reported on w, and what is wrong keeps its
// default.
func userSettings(e env, w io.Writer) contract.Settings {
	s := contract.DefaultSettings()
	file := contract.UserSettingsFile(userConfigDir(e))
	raw, err := contract.ReadSettingsFile(file)
	if err != nil {
		fmt.Fprintf(w, "agentls: settings ignored: %v\n", err)
		return s
	}
	for _, p := range s.Merge(raw) {
		fmt.Fprintf(w, "agentls: settings ignored: %s: %s\n", file, p)
	}
	return s
}

// parseFlags parses flags wherever they stand among the words (agentls run
// "fix it" --yes); "--" ends them. ok false comes with the exit code: 0
// after -h, which prints the usage on stdout.
func parseFlags(fs *flag.FlagSet, args []string, stdout io.Writer) (words []string, code int, ok bool) {
	for {
		err := fs.Parse(args)
		if errors.Is(err, flag.ErrHelp) {
			fs.SetOutput(stdout)
			fs.Usage()
			return nil, 0, false
		}
		if err != nil {
			return nil, exitUsage, false
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			return append(words, rest...), 0, true
		}
		if len(rest) == 0 {
			return words, 0, true
		}
		words, args = append(words, rest[0]), rest[1:]
	}
}

// quietSDKLog keeps the genai SDK's log lines ("Error context canceled"
// after a Ctrl-C) off the terminal: the run's own events say what happened.
func quietSDKLog() {
	log.SetFlags(0)
	log.SetOutput(io.Discard)
}

// untrustedNote says that the workspace's policy file has allow rules that
// are not in force, and how to trust it; "" when there is nothing to say.
func untrustedNote(eng *policy.Engine, root string) string {
	st, err := eng.TrustState(root)
	if err != nil || st.Trusted {
		return ""
	}
	lines := runner.TrustSummary(st)
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("This folder's configuration (%s, .agentls/settings.json) is not in force: you have not trusted it as it is; it would %s (agentls trust shows it and asks).",
		relPolicyFile, strings.Join(lines, "; "))
}

// relPolicyFile is a workspace's policy file, as users write it.
const relPolicyFile = ".agentls/policy.toml"

// apiKeys are the model's keys: no shell command sees them, no trace holds
// them.
func apiKeys(e env) []string {
	return []string{e.get("GEMINI_API_KEY"), e.get("GOOGLE_API_KEY")}
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

// openSession holds the session the run belongs to: the one named, the
// workspace's latest (--continue), or a new one. Without a state directory
// a new run belongs to none, and a follow-up is an error.
func openSession(host *runner.Host, e env, root, id string, latest bool, runID, prompt string) (*session.Writer, error) {
	if host.Sessions == nil {
		if id != "" || latest {
			_, why := sessionStore(e)
			return nil, fmt.Errorf("no sessions to follow up: %v", why)
		}
		return nil, nil
	}
	if latest {
		info, err := host.Sessions.Latest(root)
		if err != nil {
			return nil, err
		}
		id = info.ID
	}
	return host.Session(root, id, runID, shorten(prompt, 80))
}
