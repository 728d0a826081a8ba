package main

import (
	"fmt"
	"io"

	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// A bench is what a run on the terminal works with: the workspace folder
// and its policy. The rest of the run is the run builder's (package runner).
type bench struct {
	root   string
	ws     *workspace.Workspace
	engine *policy.Engine
	pol    policy.Policy
}

// newBench opens the workspace folder dir; problems that do not stop the
// run (bad policy rules) are reported on warn.
func newBench(dir string, e env, warn io.Writer) (*bench, error) {
	ws, err := workspace.New(dir)
	if err != nil {
		return nil, err
	}
	b := &bench{ws: ws, root: ws.Roots()[0]}
	b.engine = policy.New(userPolicyFile(e))
	if err := b.engine.Load([]string{b.root}); err != nil {
		fmt.Fprintf(warn, "agentls: policy rules ignored: %v\n", err)
	}
	b.pol = b.engine.WithMode(policy.ModeDefault)
	return b, nil
}

// spec is the part of a run's spec the bench knows.
func (b *bench) spec() runner.Spec {
	return runner.Spec{Workspace: b.ws, Root: b.root, Policy: b.pol}
}

// newHost is the run builder of the terminal's runs; traceDir "" leaves runs
// untraced unless their spec names a file.
func newHost(e env, traceDir string, warn io.Writer) *runner.Host {
	sessions, _ := sessionStore(e) // nil: runs are kept in no session
	return &runner.Host{
		Sessions:      sessions,
		UserConfigDir: userConfigDir(e),
		TraceDir:      traceDir,
		Version:       version,
		NewModel:      newModel(e),
		// The terminal's environment is e: commands start from it, less its
		// secrets, and traces scrub them.
		Environ: e,
		Secrets: apiKeys(e),
		Warn:    func(msg string) { fmt.Fprintf(warn, "agentls: %s\n", msg) },
	}
}
