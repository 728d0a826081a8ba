package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
)

// An MCPServer is one server of the mcpServers setting: a Model Context
// Protocol server whose tools runs may call. The keys are Gemini CLI's, so
// a block copied from its settings.json works here.
type MCPServer struct {
	// Command starts a server that speaks on its stdin and stdout, with
	// Args, in Cwd (relative to the workspace folder; "": the folder), with
	// the environment of agentls less its secrets, plus Env. Env values may
	// name variables of agentls's environment: "$TOKEN" or "${TOKEN}".
	Command string            `json:"command,omitempty" jsonschema:"the program of a server that speaks on stdin and stdout"`
	Args    []string          `json:"args,omitempty" jsonschema:"with command: its arguments"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"with command: variables set for it; $VAR and ${VAR} name agentls's own. Secrets reach a server only through env"`
	Cwd     string            `json:"cwd,omitempty" jsonschema:"with command: the folder it starts in, relative to the workspace folder"`
	// URL is a server's Server-Sent Events endpoint (Type "sse", the
	// default) or its streamable HTTP endpoint (Type "http"); HTTPURL is a
	// streamable HTTP endpoint.
	URL     string            `json:"url,omitempty" jsonschema:"an SSE endpoint (or a streamable HTTP one with type http)"`
	Type    string            `json:"type,omitempty" jsonschema:"with url: sse (the default) or http"`
	HTTPURL string            `json:"httpUrl,omitempty" jsonschema:"a streamable HTTP endpoint"`
	Headers map[string]string `json:"headers,omitempty" jsonschema:"with url or httpUrl: headers sent with every request"`
	// Timeout bounds, in milliseconds, the server's start and each request
	// to it; 0: 30 seconds to start, 10 minutes a request.
	Timeout int `json:"timeout,omitempty" jsonschema:"milliseconds for the server to start and for each call; 0: 30 s to start, 10 min a call"`
	// Trust lets the server's tools run without asking, unless a policy
	// rule says otherwise; only the user's own settings may give it.
	Trust        bool     `json:"trust,omitempty" jsonschema:"its tools run without asking (only from your own settings)"`
	IncludeTools []string `json:"includeTools,omitempty" jsonschema:"only these tools of the server (its own names)"`
	ExcludeTools []string `json:"excludeTools,omitempty" jsonschema:"not these tools of the server; wins over includeTools"`

	// Scope tells where the definition comes from; only the user's own
	// configuration may start a server anywhere and trust it.
	Scope Scope `json:"-"`
}

// A Scope tells where a setting comes from.
type Scope string

// Scopes.
const (
	// ScopeUser is the user's own configuration: the user's settings file
	// and the editor's settings, which plugins take from the user's scope.
	ScopeUser Scope = "user"
	// ScopeWorkspace is a workspace's .agentls/settings.json, which comes
	// with the repository: its servers start only in a folder the user
	// trusts, and never with trust.
	ScopeWorkspace Scope = "workspace"
)

// MCP transports, as [MCPServer.Transport] names them.
const (
	TransportStdio = "stdio"
	TransportSSE   = "sse"
	TransportHTTP  = "http"
)

// Transport is how the server is reached: stdio, sse or http.
func (m MCPServer) Transport() string {
	switch {
	case m.Command != "":
		return TransportStdio
	case m.HTTPURL != "" || m.Type == TransportHTTP:
		return TransportHTTP
	}
	return TransportSSE
}

// Endpoint is the URL of an SSE or HTTP server.
func (m MCPServer) Endpoint() string {
	if m.HTTPURL != "" {
		return m.HTTPURL
	}
	return m.URL
}

// check reports what is wrong with a server's definition.
func (m MCPServer) check() error {
	set := 0
	for _, v := range []string{m.Command, m.URL, m.HTTPURL} {
		if strings.TrimSpace(v) != "" {
			set++
		}
	}
	switch {
	case set == 0:
		return errors.New("needs one of command, url or httpUrl")
	case set > 1:
		return errors.New("has more than one of command, url and httpUrl; give one")
	case m.Command != "" && len(m.Headers) > 0:
		return errors.New("headers go with url or httpUrl, not command")
	case m.Command == "" && (len(m.Args) > 0 || len(m.Env) > 0 || m.Cwd != ""):
		return errors.New("args, env and cwd go with command, not url or httpUrl")
	case m.Type != "" && m.URL == "":
		return errors.New("type goes with url")
	case m.Type != "" && m.Type != TransportSSE && m.Type != TransportHTTP:
		return fmt.Errorf("type %q is not one of sse, http", m.Type)
	case m.Timeout < 0:
		return fmt.Errorf("timeout must not be negative, not %d", m.Timeout)
	}
	if e := m.Endpoint(); e != "" {
		u, err := url.Parse(e)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%q is not an http or https URL", e)
		}
	}
	for k := range m.Env {
		if k == "" || strings.ContainsAny(k, "=\x00") {
			return fmt.Errorf("env: %q is not a variable name", k)
		}
	}
	return nil
}

// mergeServers reads an mcpServers value over servers: each server it
// names replaces the one of that name; a server whose definition is wrong
// is left out (the one before it stays) and reported.
func mergeServers(servers map[string]MCPServer, raw json.RawMessage, scope Scope) (map[string]MCPServer, []string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return servers, []string{fmt.Sprintf("mcpServers: wrong type (%s)", strings.TrimSpace(string(raw)))}
	}
	out := maps.Clone(servers)
	if out == nil {
		out = map[string]MCPServer{}
	}
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(m)) {
		var s MCPServer
		dec := json.NewDecoder(bytes.NewReader(m[name]))
		dec.DisallowUnknownFields()
		err := dec.Decode(&s)
		switch {
		case strings.TrimSpace(name) == "":
			err = errors.New("a server needs a name")
		case err != nil && strings.Contains(err.Error(), "unknown field"):
			err = errors.New(strings.TrimPrefix(err.Error(), "json: "))
		case err != nil:
			err = fmt.Errorf("wrong type (%s)", strings.TrimSpace(string(m[name])))
		default:
			err = s.check()
		}
		if err != nil {
			problems = append(problems, fmt.Sprintf("mcpServers: %s: %v", name, err))
			continue
		}
		s.Scope = scope
		out[name] = s
	}
	return out, problems
}

// MergeWorkspace reads a workspace's settings file (raw) over s. Such a
// file comes with the repository: it may hold only mcpServers, whose
// servers never replace one of the user's of the same name, and whose
// trust is dropped. Everything else is reported and changes nothing.
func (s *Settings) MergeWorkspace(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return []string{fmt.Sprintf("settings must be an object: %v", err)}
	}
	var problems []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		if k != "mcpServers" {
			problems = append(problems, fmt.Sprintf("%s: a workspace's settings file may set only mcpServers", k))
		}
	}
	raw, ok := m["mcpServers"]
	if !ok {
		return problems
	}
	ws, ps := mergeServers(nil, raw, ScopeWorkspace)
	problems = append(problems, ps...)
	if s.MCPServers == nil {
		s.MCPServers = map[string]MCPServer{}
	}
	for _, name := range slices.Sorted(maps.Keys(ws)) {
		srv := ws[name]
		if have, ok := s.MCPServers[name]; ok && have.Scope != ScopeWorkspace {
			problems = append(problems, fmt.Sprintf("mcpServers: %s: your own settings define this server; the workspace's is left out", name))
			continue
		}
		if srv.Trust {
			problems = append(problems, fmt.Sprintf("mcpServers: %s: trust is ignored in a workspace's settings file", name))
			srv.Trust = false
		}
		s.MCPServers[name] = srv
	}
	return problems
}
