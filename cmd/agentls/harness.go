package main

import (
	"fmt"
	"io"
	"runtime"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/subagent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/workspace"
)

// A bench is what a run on the terminal works with: the workspace folder,
// its file view, the policy, and what the system prompt says about them.
type bench struct {
	root   string
	ws     *workspace.Workspace
	fs     *workspace.Folder
	engine *policy.Engine
	pol    policy.Policy
	// context and env go into the system prompt.
	context []agent.ContextFile
	env     *agent.Environment
}

// newBench opens the workspace folder dir; problems that do not stop the
// run (bad policy rules, bad context imports) are reported on warn.
func newBench(dir string, e env, warn io.Writer) (*bench, error) {
	ws, err := workspace.New(dir)
	if err != nil {
		return nil, err
	}
	b := &bench{ws: ws, root: ws.Roots()[0]}
	b.fs = ws.Folder(b.root)
	b.engine = policy.New(userPolicyFile(e))
	if err := b.engine.Load([]string{b.root}); err != nil {
		fmt.Fprintf(warn, "agentls: policy rules ignored: %v\n", err)
	}
	b.pol = b.engine.WithMode(policy.ModeDefault)
	files, errs := ws.ContextFiles(userConfigDir(e), "", b.pol.CheckImport)
	for _, err := range errs {
		fmt.Fprintf(warn, "agentls: context files: %v\n", err)
	}
	for _, f := range files {
		b.context = append(b.context, agent.ContextFile{Path: f.Path, Content: f.Content})
	}
	b.env = &agent.Environment{OS: runtime.GOOS, Date: time.Now(), Folders: ws.Roots()}
	return b, nil
}

// agents are the subagents a run may start: codebase_investigator, then
// the user's custom agents, then the workspace's, later ones replacing
// earlier ones of the same name.
func (b *bench) agents(e env, warn io.Writer) []agent.Definition {
	defs, errs := subagent.Load(userConfigDir(e), b.root)
	for _, err := range errs {
		fmt.Fprintf(warn, "agentls: custom agent left out: %v\n", err)
	}
	return defs
}

// subagentTools are the tools that start the subagents defs. A subagent
// reads the workspace and proposes nothing: its registry is the read-only
// built-in tools.
func (b *bench) subagentTools(defs []agent.Definition, m agent.Model, pol agent.Policy) []agent.Tool {
	return subagent.Tools(defs, subagent.Config{
		Model: m,
		Tools: func(agent.Definition, int) []agent.Tool {
			return tools.Builtin(tools.Env{FS: b.fs, Mode: b.pol.Mode(), Policy: b.pol})
		},
		Run: agent.Config{Policy: pol, Context: b.context, Environment: b.env},
	})
}
