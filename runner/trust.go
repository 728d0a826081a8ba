package runner

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/contract"
)

// TrustSummary lists, one line each, what trusting a workspace folder as st
// describes it would switch on: the allow rules of its policy file, its
// skills, and the MCP servers its settings file would start. Every front end asks the user
// about the same lines.
func TrustSummary(st policy.TrustState) []string {
	var lines []string
	for _, r := range st.Allows {
		lines = append(lines, "allow without asking: "+policy.Describe(r))
	}
	for _, s := range st.Skills {
		lines = append(lines, "offer the skill "+path.Base(path.Dir(s))+" ("+s+"), whose instructions the agent may load and follow")
	}
	if st.Settings == "" {
		return lines
	}
	raw, err := contract.ReadSettingsFile(st.Settings)
	if err != nil {
		return append(lines, fmt.Sprintf("%s cannot be read (%v); trusting the folder trusts it as it is", st.Settings, err))
	}
	var ws contract.Settings
	ws.MergeWorkspace(raw)
	for _, name := range slices.Sorted(maps.Keys(ws.MCPServers)) {
		s := ws.MCPServers[name]
		what := s.Endpoint()
		if s.Command != "" {
			what = strings.Join(append([]string{s.Command}, s.Args...), " ")
		}
		lines = append(lines, fmt.Sprintf("start the MCP server %s: %s", name, what))
	}
	return lines
}
