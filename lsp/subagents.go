package lsp

import (
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/subagent"
	"github.com/agentls/agentls/agent/tools"
)

// subagentTools are the run's subagent tools (codebase_investigator). A
// subagent reads through the run's file view (its staged changes included)
// and has read-only tools; its events reach the run's stream, where the
// run gives it a progress token of its own.
func (r *liveRun) subagentTools(fsys agent.FS) []agent.Tool {
	return subagent.Tools([]agent.Definition{subagent.Investigator()}, subagent.Config{
		Model: r.spec.model,
		Tools: func(agent.Definition, int) []agent.Tool { return tools.Builtin(tools.Env{FS: fsys}) },
		Run:   agent.Config{Now: r.s.now},
	})
}
