package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
)

// Default timeouts of a server whose settings give none.
const (
	DefaultStartTimeout = 30 * time.Second
	DefaultCallTimeout  = 10 * time.Minute
)

// A Server is one MCP server as a run's settings define it.
type Server struct {
	Name string
	// Transport is how the server is reached: "stdio" (Command), "sse" or
	// "http" (URL).
	Transport string
	// Command starts a stdio server with Args in Dir (absolute), with the
	// manager's environment less its secrets, plus Env ($VAR and ${VAR}
	// name variables of the manager's environment).
	Command string
	Args    []string
	Env     map[string]string
	Dir     string
	// URL is an SSE or streamable HTTP endpoint; Headers go with every
	// request (their values may name variables, as Env's).
	URL     string
	Headers map[string]string
	// Timeout bounds the server's start and each call; 0: the defaults.
	Timeout time.Duration
	// Trust lets calls run without asking (agent.Trusted); only the user's
	// own settings may set it.
	Trust        bool
	IncludeTools []string
	ExcludeTools []string
}

// Config configures a Manager.
type Config struct {
	// Environ is the environment server commands start from, before the
	// variables holding secrets are taken out; nil: the process's own.
	Environ []string
	// Secrets are values no server may see unless its settings pass them.
	Secrets []string
	// Version is agentls's version, which servers are told.
	Version string
	// StartTimeout and CallTimeout apply to servers whose settings give no
	// timeout; 0: DefaultStartTimeout, DefaultCallTimeout.
	StartTimeout, CallTimeout time.Duration
}

// A Manager holds the MCP server connections of a front end's runs: one
// per server per workspace folder, started on first use. It is safe for
// concurrent use; Close ends every server.
type Manager struct {
	cfg  Config
	base context.Context // cancelled by Close: ends starts in progress
	stop context.CancelFunc

	mu       sync.Mutex
	conns    map[string]*conn // by folder and server name
	reported map[string]bool  // warnings given already
	closed   bool
	tasks    sync.WaitGroup // starts, watchers and closes
}

// New returns a manager with no server started.
func New(cfg Config) *Manager {
	if cfg.StartTimeout <= 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	if cfg.CallTimeout <= 0 {
		cfg.CallTimeout = DefaultCallTimeout
	}
	base, stop := context.WithCancel(context.Background())
	return &Manager{cfg: cfg, base: base, stop: stop, conns: map[string]*conn{}, reported: map[string]bool{}}
}

// errClosed reports a manager, or a connection, that was closed.
var errClosed = errors.New("agentls is shutting down")

// Close ends every server (a command's whole process group) and waits for
// them; later toolsets have no tools.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	conns := make([]*conn, 0, len(m.conns))
	for _, c := range m.conns {
		conns = append(conns, c)
	}
	m.mu.Unlock()
	m.stop()
	var wg sync.WaitGroup
	for _, c := range conns {
		wg.Go(c.close)
	}
	wg.Wait()
	m.tasks.Wait()
	return nil
}

// goTask runs f unless the manager is closed; Close waits for it.
func (m *Manager) goTask(f func()) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return false
	}
	m.tasks.Go(f)
	return true
}

// conn returns the connection of srv in folder, made anew (and the old one
// closed) when the server's settings changed.
func (m *Manager) conn(folder string, srv Server) (*conn, error) {
	key := folder + "\x00" + srv.Name
	def, _ := json.Marshal(srv)
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return nil, errClosed
	}
	if c := m.conns[key]; c != nil {
		if c.def == string(def) {
			return c, nil
		}
		m.tasks.Go(c.close)
	}
	c := &conn{m: m, srv: srv, def: string(def), stderr: &tail{max: 4 << 10}}
	m.conns[key] = c
	return c, nil
}

// Once reports whether msg is new to this manager, and remembers it: a
// problem with the servers is reported once, not on every run.
func (m *Manager) Once(msg string) bool { return m.once(msg) }

// once reports whether msg is new: a warning is given once.
func (m *Manager) once(msg string) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.reported[msg] {
		return false
	}
	m.reported[msg] = true
	return true
}

func (m *Manager) startTimeout(srv Server) time.Duration {
	if srv.Timeout > 0 {
		return srv.Timeout
	}
	return m.cfg.StartTimeout
}

func (m *Manager) callTimeout(srv Server) time.Duration {
	if srv.Timeout > 0 {
		return srv.Timeout
	}
	return m.cfg.CallTimeout
}

// A Toolset is the MCP tools of one run, and the problems to report.
type Toolset struct {
	Tools []agent.Tool
	// Decls are the tools as declared, for the trace.
	Decls []Decl
	// Warnings are problems the run goes on with (a server that did not
	// start, a tool left out), each given once per manager.
	Warnings []string
}

// A Decl is an MCP tool as a run declared it to the model.
type Decl struct {
	Name        string          `json:"name"`
	Server      string          `json:"server"`
	Tool        string          `json:"tool"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Trusted     bool            `json:"trusted,omitempty"`
}

// maxDescription bounds a tool's description: the model reads it every
// turn.
const maxDescription = 8 << 10

// Toolset starts the servers of a run in the workspace folder (those not
// running yet, at once), lists their tools, and returns them named
// mcp_{server}_{tool}. Servers are taken in the order of their names, each
// one's tools in its order: a tool whose name is in reserved (the built-in
// tools, the subagents) or taken by an earlier one is left out, as is one
// whose input schema is not a JSON Schema of an object. A server that does
// not start is left out; the run goes on without it. ctx bounds the wait
// for the servers, not their start.
func (m *Manager) Toolset(ctx context.Context, folder string, servers []Server, reserved []string) *Toolset {
	servers = slices.Clone(servers)
	slices.SortFunc(servers, func(a, b Server) int { return compareStrings(a.Name, b.Name) })
	ts := &Toolset{}
	conns := make([]*conn, len(servers))
	lists := make([][]listed, len(servers))
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, srv := range servers {
		c, err := m.conn(folder, srv)
		if err != nil {
			return ts
		}
		conns[i] = c
		wg.Go(func() { lists[i], errs[i] = c.toolList(ctx) })
	}
	wg.Wait()
	run := &runState{restarted: map[*conn]bool{}}
	taken := map[string]string{}
	for _, r := range reserved {
		taken[r] = "a built-in tool"
	}
	warn := func(format string, args ...any) {
		if msg := fmt.Sprintf(format, args...); m.once(msg) {
			ts.Warnings = append(ts.Warnings, msg)
		}
	}
	for i, srv := range servers {
		if errs[i] != nil {
			if !errors.Is(errs[i], context.Canceled) && !errors.Is(errs[i], errClosed) {
				warn("MCP server %q did not start: %v; the run goes on without its tools", srv.Name, errs[i])
			}
			continue
		}
		for _, l := range lists[i] {
			if !wanted(srv, l.name) {
				continue
			}
			name := ToolName(srv.Name, l.name)
			if by, ok := taken[name]; ok {
				warn("MCP server %q: tool %q is left out: its name %s is taken by %s", srv.Name, l.name, name, by)
				continue
			}
			if l.err != nil {
				warn("MCP server %q: tool %q is left out: its input schema is not valid: %v", srv.Name, l.name, l.err)
				continue
			}
			taken[name] = fmt.Sprintf("tool %q of MCP server %q", l.name, srv.Name)
			d := Decl{Name: name, Server: srv.Name, Tool: l.name, Description: capOutput(l.description, maxDescription),
				Parameters: l.schema, Trusted: srv.Trust}
			ts.Decls = append(ts.Decls, d)
			ts.Tools = append(ts.Tools, &tool{decl: d, conn: conns[i], run: run})
		}
	}
	return ts
}

// wanted applies a server's includeTools and excludeTools to one of its
// tools.
func wanted(srv Server, name string) bool {
	if slices.Contains(srv.ExcludeTools, name) {
		return false
	}
	return len(srv.IncludeTools) == 0 || slices.Contains(srv.IncludeTools, name)
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// runState is what a run's tools share: which servers the run started
// again after they stopped.
type runState struct {
	mu        sync.Mutex
	restarted map[*conn]bool
}

// restart reports whether the run may start c again, and counts it.
func (r *runState) restart(c *conn) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.restarted[c] {
		return false
	}
	r.restarted[c] = true
	return true
}
