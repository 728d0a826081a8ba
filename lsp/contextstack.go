package lsp

import (
	"runtime"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/workspace"
)

// contextStack is the run's project context: the AGENTS.md and GEMINI.md
// files from the user's folder and from the workspace folder down to the
// active file's, and the environment. Files and imports pass pol's checks
// (nothing from .git/ or .agentls/, no secret-looking file). Problems with
// the files are logged; the files that could be read apply.
func (r *liveRun) contextStack(pol policy.Policy) ([]agent.ContextFile, *agent.Environment) {
	active := ""
	if r.spec.args.URI != "" {
		active, _ = workspace.PathFromURI(r.spec.args.URI)
	}
	files, errs := r.spec.ws.ContextFiles(r.s.cfg.UserConfigDir, active, pol.CheckImport)
	for _, err := range errs {
		r.s.log.Warn("context file", "err", err)
	}
	out := make([]agent.ContextFile, len(files))
	for i, f := range files {
		out[i] = agent.ContextFile{Path: f.Path, Content: f.Content}
	}
	return out, &agent.Environment{OS: runtime.GOOS, Date: r.s.now(), Folders: r.spec.ws.Roots()}
}
