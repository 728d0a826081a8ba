package lsp

import (
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
	defs, errs := subagent.Load(r.s.cfg.UserConfigDir, r.spec.root)
	for _, err := range errs {
		r.s.log.Warn("custom agent left out", "err", err)
	}
	return subagent.Tools(defs, subagent.Config{
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
