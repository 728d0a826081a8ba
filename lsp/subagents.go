package lsp

import (
	"path/filepath"
	"slices"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/subagent"
	"github.com/agentls/agentls/agent/tools"
)

// subagentTools are the run's subagent tools: codebase_investigator and the
// custom agents of the user's folder (agents/*.md) and of the run's workspace
// folder (.agentls/agents/*.md), the workspace's overriding the user's. A
// subagent reads through the run's file view (its staged changes included);
// it is read-only unless its definition lists an edit tool, and the run's
// policy applies to it under its own name. Its events reach the run's
// stream, where the run gives it a progress token of its own.
func (r *liveRun) subagentTools(env tools.Env, run agent.Config) []agent.Tool {
	defs := []agent.Definition{subagent.Investigator()}
	var user []agent.Definition
	var errs []error
	if dir := r.s.cfg.UserConfigDir; dir != "" {
		user, errs = subagent.LoadDir(filepath.Join(dir, "agents"))
	}
	ws, wsErrs := subagent.LoadDir(filepath.Join(r.spec.root, ".agentls", "agents"))
	for _, err := range append(errs, wsErrs...) {
		r.s.log.Warn("custom agent left out", "err", err)
	}
	return subagent.Tools(subagent.Merge(defs, user, ws), subagent.Config{
		Model: r.spec.model,
		Tools: func(def agent.Definition, depth int) []agent.Tool {
			e := env
			if !slices.ContainsFunc(def.Tools, isEditTool) {
				e.Proposer = nil // read-only by default
			}
			return tools.Builtin(e)
		},
		Run: run,
	})
}

func isEditTool(name string) bool { return name == "replace" || name == "write_file" }
