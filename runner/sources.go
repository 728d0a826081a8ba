// The sources a run is built from that come from the user and the
// workspace: custom agents, skills, project context files.

package runner

import (
	"fmt"
	"os"
	"runtime"
	"slices"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/subagent"
)

// agents are the subagents a run in root may start: codebase_investigator,
// then the user's custom agents, then the workspace folder's. Those left
// out are reported.
func (h *Host) agents(root string, report func(string)) []agent.Definition {
	defs, errs := subagent.Load(h.UserConfigDir, root)
	for _, err := range errs {
		report(fmt.Sprintf("custom agent left out: %v", err))
	}
	return defs
}

// webOn reports whether a run gets the web tools: the web setting, and in
// plan mode the webInPlanMode one.
func webOn(spec Spec) bool {
	return spec.Settings.Web && (spec.Policy.Mode() != policy.ModePlan || spec.Settings.WebInPlanMode)
}

// skills are the skills a run may activate: those of the workspace folders
// the user trusts as they are (trust covers their skills: a repository's
// skills steer the agent, as its allow rules do), the run's folder first,
// then the user's own. Skills that do
// not parse or clash, and those of untrusted folders, are reported.
func (h *Host) skills(spec Spec, report func(string)) []skill.Skill {
	roots := []string{spec.Root}
	for _, r := range spec.Workspace.Roots() {
		if !slices.Contains(roots, r) {
			roots = append(roots, r)
		}
	}
	var places []skill.Place
	for _, root := range roots {
		ps := skill.Places(root)
		if spec.Policy.TrustsFolder(root) {
			places = append(places, ps...)
			continue
		}
		for _, pl := range ps {
			if fi, err := os.Stat(pl.Dir); err == nil && fi.IsDir() {
				report(fmt.Sprintf("skills in %s are left out: you do not trust the folder's configuration as it is (agentls trust, or the agentls.approvals trust action)", pl.Dir))
			}
		}
	}
	if h.UserConfigDir != "" {
		places = append(places, skill.UserPlace(h.UserConfigDir))
	}
	found, errs := skill.Find(places)
	for _, err := range errs {
		report(fmt.Sprintf("skill: %v", err))
	}
	return found
}

// context is the run's project context, the AGENTS.md and GEMINI.md files
// from the user's folder and the workspace folder down to the active
// file's, and its environment. Context files and their imports pass the
// policy's checks (policy.Policy.CheckImport): nothing from .git/ or
// .agentls/, no secret-looking file; those that fail are reported.
func (h *Host) context(spec Spec, report func(string)) ([]agent.ContextFile, *agent.Environment) {
	files, errs := spec.Workspace.ContextFiles(h.UserConfigDir, spec.ActiveFile, spec.Policy.CheckImport)
	for _, err := range errs {
		report(fmt.Sprintf("context file: %v", err))
	}
	out := make([]agent.ContextFile, len(files))
	for i, f := range files {
		out[i] = agent.ContextFile{Path: f.Path, Content: f.Content}
	}
	return out, &agent.Environment{OS: runtime.GOOS, Date: h.now(), Folders: spec.Workspace.Roots()}
}
