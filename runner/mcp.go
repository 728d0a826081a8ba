package runner

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/contract"
)

// mcpServers are the MCP servers of a run in spec.Root: the user's (the
// spec's settings), then the workspace folder's .agentls/settings.json,
// whose servers count only when the user trusts the folder. Problems are
// returned, to report on the run.
func mcpServers(spec Spec) ([]mcp.Server, []string) {
	settings := spec.Settings
	settings.MCPServers = maps.Clone(settings.MCPServers)
	var problems []string
	file := contract.WorkspaceSettingsFile(spec.Root)
	raw, err := contract.ReadSettingsFile(file)
	switch {
	case err != nil:
		problems = append(problems, fmt.Sprintf("%s is ignored: %v", file, err))
	case raw != nil && !spec.Policy.TrustsFolder(spec.Root):
		var ws contract.Settings
		ws.MergeWorkspace(raw)
		if len(ws.MCPServers) > 0 {
			problems = append(problems, fmt.Sprintf("%s defines MCP servers (%s); they start only in a folder you trust, and %s is not trusted",
				file, strings.Join(slices.Sorted(maps.Keys(ws.MCPServers)), ", "), spec.Root))
		}
	case raw != nil:
		for _, p := range settings.MergeWorkspace(raw) {
			problems = append(problems, file+": "+p)
		}
	}
	var out []mcp.Server
	for _, name := range slices.Sorted(maps.Keys(settings.MCPServers)) {
		out = append(out, mcpServer(name, settings.MCPServers[name], spec.Root))
	}
	return out, problems
}

// mcpServer is a server of the settings for a run in root.
func mcpServer(name string, s contract.MCPServer, root string) mcp.Server {
	dir := root
	if s.Cwd != "" {
		dir = s.Cwd
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(root, dir)
		}
	}
	return mcp.Server{Name: name, Transport: s.Transport(), Command: s.Command, Args: s.Args, Env: s.Env, Dir: dir,
		URL: s.Endpoint(), Headers: s.Headers, Timeout: time.Duration(s.Timeout) * time.Millisecond,
		Trust: s.Trust && s.Scope == contract.ScopeUser, IncludeTools: s.IncludeTools, ExcludeTools: s.ExcludeTools}
}

// offersMCP reports whether a run gets MCP tools: like shell commands, they
// may change anything, so a read-only run (in plan mode, or one that cannot
// propose changes) has none.
func offersMCP(spec Spec, p parts) bool {
	return p.proposer != nil && spec.Policy.Mode() != policy.ModePlan
}

// prepareMCP returns what starts a run's MCP servers and gives the run
// their tools, when the run has servers: it runs on the run's goroutine
// when the run starts, so that a slow server never holds up the request
// that started the run.
func (h *Host) prepareMCP(run *Run, spec Spec, p parts) func(ctx context.Context) []string {
	if h.MCP == nil || !offersMCP(spec, p) {
		return nil
	}
	servers, problems := mcpServers(spec)
	problems = slices.DeleteFunc(problems, func(p string) bool { return !h.MCP.Once(p) })
	if len(servers) == 0 {
		if len(problems) == 0 {
			return nil
		}
		return func(context.Context) []string { return problems }
	}
	return func(ctx context.Context) []string {
		reserved := []string{agent.CompleteTaskName}
		for _, t := range run.Config.Tools {
			reserved = append(reserved, t.Declaration().Name)
		}
		ts := h.MCP.Toolset(ctx, spec.Root, servers, reserved)
		p.mcp = ts.Tools
		cfg := h.config(spec, p)
		cfg.Agent.Model = run.Config.Agent.Model
		run.Config = cfg
		run.header.MCPTools = nil
		for _, d := range ts.Decls {
			run.header.MCPTools = append(run.header.MCPTools, trace.MCPTool{Name: d.Name, Server: d.Server, Tool: d.Tool,
				Description: d.Description, Parameters: d.Parameters, Trusted: d.Trusted})
		}
		return append(problems, ts.Warnings...)
	}
}

// offlineMCP are the MCP tools a trace recorded, declared again with no
// server behind them.
func offlineMCP(hd trace.Header) []agent.Tool {
	var out []agent.Tool
	for _, t := range hd.MCPTools {
		out = append(out, mcp.Offline(mcp.Decl{Name: t.Name, Server: t.Server, Tool: t.Tool, Description: t.Description,
			Parameters: t.Parameters, Trusted: t.Trusted}))
	}
	return out
}

// listed are the tools of ts that def lists: a subagent gets MCP tools only
// when its definition names them.
func listed(ts []agent.Tool, def agent.Definition) []agent.Tool {
	var out []agent.Tool
	for _, t := range ts {
		if def.Tools != nil && slices.Contains(def.Tools, t.Declaration().Name) {
			out = append(out, t)
		}
	}
	return out
}

// warning is a warning event of the run that started with ev.
func warning(ev agent.Event, text string, now time.Time) agent.Event {
	return agent.Event{Type: agent.EventWarning, RunID: ev.RunID, Agent: ev.Agent, Time: now, Text: text}
}
