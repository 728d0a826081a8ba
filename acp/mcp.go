package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/contract"
)

// withClientServers returns the settings of a session: the user's, with
// the MCP servers the client gave (session/new, session/load) added under
// their names, over any of the user's of the same name, as the mcpServers
// setting holds them (checked as it checks its own, never trusted: each
// call asks). What is wrong with them is returned.
func withClientServers(base contract.Settings, servers []acpsdk.McpServer) (contract.Settings, []string) {
	s := base
	s.MCPServers = nil
	for name, srv := range base.MCPServers {
		if s.MCPServers == nil {
			s.MCPServers = map[string]contract.MCPServer{}
		}
		s.MCPServers[name] = srv
	}
	defs := map[string]map[string]any{}
	var problems []string
	for _, m := range servers {
		name, def, err := clientServer(m)
		if err != nil {
			problems = append(problems, fmt.Sprintf("the client's MCP server %q is not used: %v", name, err))
			continue
		}
		defs[name] = def
	}
	if len(defs) == 0 {
		return s, problems
	}
	raw, err := json.Marshal(map[string]any{"mcpServers": defs})
	if err != nil {
		return s, append(problems, err.Error())
	}
	for _, p := range s.Merge(raw) {
		problems = append(problems, "the client's "+p)
	}
	return s, problems
}

// clientServer is an ACP MCP server as the mcpServers setting writes it.
func clientServer(m acpsdk.McpServer) (name string, def map[string]any, err error) {
	headers := func(hs []acpsdk.HttpHeader) map[string]string {
		out := map[string]string{}
		for _, h := range hs {
			out[h.Name] = h.Value
		}
		return out
	}
	switch {
	case m.Stdio != nil:
		env := map[string]string{}
		for _, e := range m.Stdio.Env {
			// The setting's values may name agentls's variables ($VAR);
			// the client's are literal, and none can say "$" literally.
			if strings.Contains(e.Value, "$") {
				return m.Stdio.Name, nil, fmt.Errorf("the value of %s holds \"$\", which agentls would read as a variable", e.Name)
			}
			env[e.Name] = e.Value
		}
		return m.Stdio.Name, map[string]any{"command": m.Stdio.Command, "args": m.Stdio.Args, "env": env}, nil
	case m.Http != nil:
		return m.Http.Name, map[string]any{"httpUrl": m.Http.Url, "headers": headers(m.Http.Headers)}, nil
	case m.Sse != nil:
		return m.Sse.Name, map[string]any{"url": m.Sse.Url, "type": "sse", "headers": headers(m.Sse.Headers)}, nil
	case m.Acp != nil:
		return m.Acp.Name, nil, fmt.Errorf("agentls does not speak MCP over ACP")
	}
	return "", nil, fmt.Errorf("unknown transport")
}
