package runner

import (
	"path/filepath"
	"slices"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/agent/trace"
)

// Replay builds the run a trace recorded, through the same code as Build:
// the recording answers the model calls, the policy checks and the
// approvals, and gives the tools that reach past the workspace (shell
// commands, the web, MCP tools; see trace.IsSideEffecting) their recorded results without
// running them; the subagents and skills are the ones the trace recorded,
// custom ones included, and facts go to the recorded user folder. Changes
// go to spec.Proposer (in memory, or a scratch copy) when the recorded run
// could change files.
//
// The run reports the warnings the recorded run reported as it started,
// and no others: problems with the workspace as it is now (a context file
// that fails its checks) go to the host's Warn only.
//
// spec names the workspace to replay on; its Settings, Task and RunID are
// taken from the trace. The returned Replay reports a divergence from the
// recording; call its SetAbort with the run's cancel to stop at the first.
func (h *Host) Replay(tr *trace.Trace, spec Spec) (*Run, *trace.Replay) {
	rp := trace.NewReplay(tr)
	rec := rp.Config()
	hd := tr.Header
	spec.RunID = hd.RunID
	spec.Task = rp.Task()
	spec.Settings.Model = hd.Model
	def := hd.Agent.Definition()
	spec.Settings.MaxTurns = def.MaxTurns
	spec.Settings.TimeoutMinutes = def.Timeout.Minutes()
	if !slices.ContainsFunc(hd.Tools, tools.NeedsProposer) {
		spec.Proposer = nil
	}
	if spec.Proposer != nil {
		spec.Proposer = rp.Proposer(spec.Proposer)
	}
	var agents []agent.Definition
	for _, d := range hd.Subagents {
		agents = append(agents, d.Definition())
	}
	var skills []skill.Skill // as recorded, read again where they were
	for _, s := range hd.Skills {
		skills = append(skills, skill.Skill{Name: s.Name, Description: s.Description, Path: s.Path, Dir: filepath.Dir(s.Path), Source: s.Source})
	}
	spec.Settings.Web = slices.Contains(hd.Tools, "web_fetch") || slices.Contains(hd.Tools, "google_web_search")
	spec.Settings.WebInPlanMode = true
	spec.Settings.WebPrivateNetwork, _ = hd.Settings["webPrivateNetwork"].(bool)
	// The recorded MCP tools are declared again; their calls get the
	// recorded results, and no server starts.
	p := parts{model: rp, policy: rec.Policy, approver: rec.Approver, proposer: spec.Proposer, agents: agents, skills: skills, userDir: hd.UserDir,
		mcp: offlineMCP(hd), wrap: func(ts []agent.Tool) []agent.Tool { return rp.Tools(ts) }}
	p.context, p.env = h.context(spec, h.warn)
	run := &Run{Task: spec.Task, warn: h.warn, now: h.now, warnings: startWarnings(tr)}
	run.Config = h.config(spec, p)
	run.Config.Agent = def
	run.Config.ContextWindow, run.Config.CompressAt = rec.ContextWindow, rec.CompressAt
	return run, rp
}

// startWarnings are the warnings a recorded run reported as it started:
// those that follow its run_start (see [Run.Events]).
func startWarnings(tr *trace.Trace) []string {
	var out []string
	started := false
	for _, ev := range tr.Events {
		switch {
		case !started:
			started = ev.Type == agent.EventRunStart && ev.RunID == tr.Header.RunID
		case ev.Type == agent.EventWarning && ev.RunID == tr.Header.RunID:
			out = append(out, ev.Text)
		default:
			return out
		}
	}
	return out
}
