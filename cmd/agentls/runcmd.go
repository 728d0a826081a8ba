package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/record"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/workspace"
)

// Exit codes of agentls run: 0 when the agent reached its goal.
var stopCodes = map[agent.StopReason]int{
	agent.StopGoal:           0,
	agent.StopError:          1,
	agent.StopAborted:        3,
	agent.StopTimeout:        4,
	agent.StopMaxTurns:       5,
	agent.StopNoCompleteTask: 6,
}

func runCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("workspace", ".", "the workspace folder")
	model := fs.String("model", "gemini-2.5-flash", "the model")
	yes := fs.Bool("yes", false, "apply every proposed change to disk without asking")
	replay := fs.String("replay", "", "answer from a recorded session file instead of calling the model")
	rec := fs.String("record", "", "record the model's answers to this session file")
	scratch := fs.Bool("scratch", false, "work on a temporary copy of the workspace, never on the original")
	maxTurns := fs.Int("max-turns", agent.DefaultMaxTurns, "the turn limit")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: agentls run [flags] \"PROMPT\"\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	prompt := strings.Join(fs.Args(), " ")

	var m agent.Model
	if *replay != "" {
		rp, err := record.Load(*replay)
		if err != nil {
			fmt.Fprintf(stderr, "agentls: replay: %v\n", err)
			return 2
		}
		if prompt == "" {
			prompt = rp.Header.Task
		}
		m = rp
	} else {
		var err error
		if m, err = newModel(ctx, *model, getenv); err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return 2
		}
	}
	if strings.TrimSpace(prompt) == "" {
		fs.Usage()
		return 2
	}
	if *rec != "" {
		f, err := os.Create(*rec)
		if err != nil {
			fmt.Fprintf(stderr, "agentls: record: %v\n", err)
			return 2
		}
		defer f.Close()
		if m, err = record.NewRecorder(m, f, record.Entry{Task: prompt, Model: *model, Version: version}); err != nil {
			fmt.Fprintf(stderr, "agentls: record: %v\n", err)
			return 2
		}
	}

	root := *dir
	if *scratch {
		tmp, err := os.MkdirTemp("", "agentls-scratch-")
		if err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return 1
		}
		if err := os.CopyFS(tmp, os.DirFS(root)); err != nil {
			fmt.Fprintf(stderr, "agentls: copy workspace: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "Working on a scratch copy of %s: %s\n\n", root, tmp)
		root = tmp
	}
	ws, err := workspace.New(root)
	if err != nil {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return 2
	}
	root = ws.Roots()[0]
	pr := newPrinter(stdout, isTerminal(stdout))
	in := bufio.NewReader(stdin)
	prop := &termProposer{yes: *yes, in: in, p: pr}
	eng := policy.New(policy.UserFile())
	if err := eng.Load([]string{root}); err != nil {
		fmt.Fprintf(stderr, "agentls: policy rules ignored: %v\n", err)
	}
	pol := eng.WithMode(policy.ModeDefault)
	env := tools.Env{FS: &diskFS{ws: ws, root: root}, Proposer: prop, Mode: pol.Mode(), Policy: pol,
		Secrets: []string{getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY")}}
	cfg := agent.Config{
		Model:    m,
		Agent:    agent.Definition{Name: "main", MaxTurns: *maxTurns},
		Tools:    tools.Builtin(env),
		Policy:   pol,
		Approver: &termApprover{yes: *yes, in: in, p: pr, eng: eng, root: root},
	}
	end := agent.RunEnd{Reason: agent.StopError}
	for ev, err := range agent.Run(ctx, cfg, agent.Task{Prompt: prompt}) {
		if err != nil {
			fmt.Fprintf(stderr, "agentls: %v\n", err)
			return 1
		}
		pr.event(ev)
		if ev.End != nil {
			end = *ev.End
		}
	}
	if *scratch {
		fmt.Fprintf(stdout, "\nThe scratch copy is in %s\n", root)
	}
	return stopCodes[end.Reason]
}

// diskFS is the harness's view of a workspace on disk.
type diskFS struct {
	ws   *workspace.Workspace
	root string
}

func (f *diskFS) Resolve(p string) (string, error) { return f.ws.Resolve(f.root, p) }
func (f *diskFS) ReadFile(p string) (string, error) {
	file, err := f.ws.ReadFile(p)
	return file.Text, err
}
func (f *diskFS) ReadDir(p string) ([]os.DirEntry, error) { return f.ws.ReadDir(p) }
func (f *diskFS) Rel(p string) string {
	if r := f.ws.Rel(p); r != "" {
		return r
	}
	return "."
}

// termProposer asks on the terminal, or applies everything with --yes.
type termProposer struct {
	yes bool
	in  *bufio.Reader
	p   *printer
}

func (t *termProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	cur, err := os.ReadFile(ch.Path)
	switch {
	case err != nil && !errors.Is(err, os.ErrNotExist):
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	case (err == nil) == ch.Create, err == nil && string(cur) != ch.Old:
		return agent.Decision{Outcome: agent.OutcomeConflict}, nil
	}
	if !t.yes {
		answer, err := t.p.ask(t.in, fmt.Sprintf("Apply the change to %s? [y/n] ", ch.Name))
		if err != nil {
			return agent.Decision{Outcome: agent.OutcomeRejected, Message: "no answer on the terminal (use --yes to apply without asking)"}, nil
		}
		if answer != "y" && answer != "yes" {
			return agent.Decision{Outcome: agent.OutcomeRejected}, nil
		}
	}
	if err := writeAtomic(ch.Path, ch.New); err != nil {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	}
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// writeAtomic replaces path's content in one step, keeping its mode.
func writeAtomic(path, content string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentls-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
