// Package runner builds harness runs, the same way for every front end:
// `agentls serve` (package lsp), `agentls run` and `agentls replay` (the
// terminal), and any front end to come. It is to agentls what ADK Go's
// runner is to its agents: the one place that says how a run is put
// together.
//
// Vocabulary:
//
//   - A [Host] is what lasts as long as a front end serves: the user's
//     folders, where traces go, how to reach the model, which values are
//     secret.
//   - A [Spec] is one run as a front end asks for it, and holds only what
//     differs between front ends: the file view, where proposals go, who is
//     asked for approvals, the policy in its mode, the settings and the task.
//   - A [Run] is a built run: the harness's configuration with its tools,
//     subagents, project context, environment, policy and model layers,
//     traced when the host traces, kept in its session when it has one. [Host.Replay] builds a recorded run again
//     from its trace through the same code, with the recording standing in
//     for the model, the policy, the approver and side-effecting tools.
package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/subagent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/agent/web"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/workspace"
)

// A Host is what a front end's runs share.
type Host struct {
	// UserConfigDir is the user's agentls folder: agents/*.md and the user's
	// AGENTS.md. "": none.
	UserConfigDir string
	// TraceDir is where runs write their traces
	// (<dir>/<workspace hash>/<runId>.jsonl); "": runs are not traced
	// unless their Spec names a trace file.
	TraceDir string
	// Version is agentls's version, for trace headers.
	Version string
	// NewModel returns the model a run talks to, by the model setting's
	// name (agent.ModelAuto routes). It is called when a run is built, so a
	// missing API key is reported on the run.
	NewModel func(ctx context.Context, name string) (agent.Model, error)
	// Secrets are values no shell command and no trace may see, such as
	// the model's API key.
	Secrets []string
	// Environ is the environment shell commands start from, before secrets
	// are taken out; nil: the process's own.
	Environ []string
	// Now is the clock; nil: time.Now.
	Now func() time.Time
	// Warn reports problems that do not stop a run (a custom agent that
	// does not parse, an import of a context file that fails); nil: drop
	// them. Those found while building a run are the run's warning events
	// too (see [Run.Events]).
	Warn func(msg string)
	// ShowsWarnings says the front end shows a run's warning events where
	// Warn writes (a terminal prints both to its user): the problems a run
	// reports as warning events are then not given to Warn as well.
	ShowsWarnings bool
	// Web is the base configuration of web_fetch's client; the settings
	// decide whether private addresses are allowed. Tests give a resolver
	// and their server's certificate.
	Web web.Config
	// Sessions keeps the conversations runs belong to (see [Host.Session]);
	// nil: runs belong to none.
	Sessions *session.Store
	// MCP holds the MCP servers of the front end's runs, one per server
	// per workspace folder, started when a run first needs them (see
	// Spec.Settings.MCPServers); the front end closes it when it ends.
	// nil: runs have no MCP tools.
	MCP *mcp.Manager

	pruning pruning // of TraceDir, after a run starts (retention.go)
}

// A Spec is one run, as a front end asks for it.
type Spec struct {
	// RunID names the run; "": a new "main-<hex>".
	RunID string
	// Workspace and Root are the workspace and the folder of it the run
	// works in.
	Workspace *workspace.Workspace
	Root      string
	// Files is the run's view of the files (the editor's buffers, a stage
	// of changes, the disk); nil: Workspace's folder Root.
	Files agent.FS
	// Proposer receives the run's changes; nil: the run is read-only.
	Proposer agent.Proposer
	// Approver asks the user to allow what the policy asks about; nil:
	// such calls are refused.
	Approver agent.Approver
	// Policy is the run's policy in its approval mode.
	Policy policy.Policy
	// Settings are the run's settings: model, limits, shell timeout.
	Settings contract.Settings
	Task     agent.Task
	// ActiveFile is the absolute path of the file the user is in, where
	// the project context files end; "": the workspace folder's.
	ActiveFile string
	// System is what the front end tells the model besides the harness's
	// own prompt (how its changes reach the user).
	System string
	// Diagnostics returns the problems the editor shows (see tools.Env);
	// nil: the run has no get_diagnostics tool.
	Diagnostics func(abs string) map[string][]agent.Diagnostic
	// BeforeComplete runs when complete_task is called (agent.Config).
	BeforeComplete func(ctx context.Context, result string) (feedback string, err error)
	// TracePath is where the run's trace goes; "": the host's TraceDir.
	TracePath string
	// Record are settings of the front end to record in the trace header
	// besides Settings (terminal flags).
	Record map[string]any
	// Session is the session the run belongs to, held for it (see
	// [Host.Session]): the run continues the session's conversation, and
	// its history, the changes the user accepts and its end are written to
	// the session as they happen. The run releases it when it ends (or
	// [Run.Discard]). nil: the run belongs to no session.
	Session *session.Writer
	// Unsaved names the files the editor holds with changes not on disk,
	// which shell commands will not see (tools.Env); nil: none.
	Unsaved func() []string
}

// A Run is a built run, ready to start once.
type Run struct {
	// Config is the harness's configuration of the run.
	Config agent.Config
	Task   agent.Task
	// TracePath is the run's trace file; "" when the run is not traced.
	TracePath string

	trace   *trace.Writer
	header  trace.Header
	warn    func(string)
	now     func() time.Time
	session *session.Writer // nil once released
	// sessionID names the run's session, "" for none.
	sessionID string
	prompt    string // the task as the session records it
	model     string
	// warnings are the problems found while building the run (or, in a
	// replay, those the recording reported), reported as the run starts.
	warnings []string
	// prepare, when set, runs as the run starts: it starts the run's MCP
	// servers, gives the run their tools, and returns the problems to
	// report on the run.
	prepare func(ctx context.Context) []string
}

// parts are what a live run and a replayed one take from different places.
type parts struct {
	model    agent.Model
	policy   agent.Policy
	approver agent.Approver
	proposer agent.Proposer
	agents   []agent.Definition
	skills   []skill.Skill
	// context and env are the project context and the environment.
	context []agent.ContextFile
	env     *agent.Environment
	// userDir is where save_memory keeps the user's facts.
	userDir string
	// mcp are the tools of the run's MCP servers.
	mcp []agent.Tool
	// wrap replaces the tools that must not run again in a replay.
	wrap func([]agent.Tool) []agent.Tool
}

// Build builds a run. Problems that stop it (no model, a bad setting) are
// errors; problems that do not (a custom agent that does not parse, a skill
// left out, a context file that fails its checks, a trace that cannot be
// written) are reported on the run, as warning events after run_start, and
// go to the host's Warn.
func (h *Host) Build(ctx context.Context, spec Spec) (*Run, error) {
	if h.NewModel == nil {
		return nil, errors.New("no model configured")
	}
	name := spec.Settings.Model
	model, err := h.NewModel(ctx, name)
	if err != nil {
		return nil, err
	}
	if spec.RunID == "" {
		spec.RunID = trace.NewRunID("main")
	}
	run := &Run{Task: spec.Task, warn: h.warn, now: h.now, session: spec.Session, prompt: spec.Task.Prompt, model: name}
	report := func(msg string) {
		run.warnings = append(run.warnings, msg)
		if !h.ShowsWarnings {
			h.warn(msg)
		}
	}
	if spec.Session != nil {
		run.sessionID = spec.Session.ID()
		run.Task.Notes = append(spec.Session.Notes(), run.Task.Notes...)
		spec.Proposer = recorder(spec.Proposer, spec.Session)
	}
	if err := h.openTrace(run, spec); err != nil {
		report(fmt.Sprintf("run %s is not traced: %v", spec.RunID, err))
	}
	var pol agent.Policy = spec.Policy
	if run.trace != nil {
		model, pol = run.trace.Model(model), run.trace.Policy(spec.Policy)
	}
	p := parts{model: model, policy: pol, approver: spec.Approver, proposer: spec.Proposer,
		agents: h.agents(spec.Root, report), skills: h.skills(spec, report), userDir: h.UserConfigDir, wrap: func(ts []agent.Tool) []agent.Tool { return ts }}
	p.context, p.env = h.context(spec, report)
	run.Config = h.config(spec, p)
	if name == agent.ModelAuto {
		run.Config.Agent.Model = agent.ModelAuto // the harness routes the run
	}
	if s := spec.Session; s != nil {
		run.Config.History = s.History()
		run.Config.SaveHistory = s.SaveHistory
	}
	if run.trace != nil {
		run.header = h.header(spec, p)
	}
	run.prepare = h.prepareMCP(run, spec, p)
	return run, nil
}

// config assembles the harness's configuration from a spec and its parts:
// the built-in tools, the subagents (each with the same context,
// environment, policy and approver, read-only unless its definition lists a
// tool that changes files), the project context and the environment.
func (h *Host) config(spec Spec, p parts) agent.Config {
	files := spec.Files
	if files == nil {
		files = spec.Workspace.Folder(spec.Root)
	}
	env := tools.Env{FS: files, Proposer: p.proposer, Mode: spec.Policy.Mode(), Policy: spec.Policy,
		ShellTimeout: time.Duration(spec.Settings.ShellTimeoutSeconds * float64(time.Second)),
		Environ:      h.Environ, Secrets: h.Secrets, Diagnostics: spec.Diagnostics, Unsaved: spec.Unsaved, UserDir: p.userDir}
	if webOn(spec) {
		wc := h.Web
		wc.AllowPrivate = spec.Settings.WebPrivateNetwork
		env.Web, env.Search = web.New(wc), true
	}
	shared := agent.Config{Policy: p.policy, Approver: p.approver, Context: p.context, Environment: p.env, Now: h.Now,
		Router:          agent.Router{Fast: spec.Settings.FastModel, Strong: spec.Settings.StrongModel, Classifier: spec.Settings.ClassifierModel},
		NoLoopDetection: !spec.Settings.LoopDetection,
		Prices:          agent.Prices.With(spec.Settings.Prices)}
	if spec.Settings.Model != agent.ModelAuto {
		shared.ModelName = spec.Settings.Model
	}
	subagents := subagent.Tools(p.agents, subagent.Config{
		Model: p.model,
		Tools: func(def agent.Definition, depth int) []agent.Tool {
			e := env
			e.Skills = nil // skills are the main agent's: its system prompt lists them
			if !slices.ContainsFunc(def.Tools, tools.NeedsProposer) {
				e.Proposer = nil // read-only unless the definition says otherwise
			}
			return p.wrap(append(tools.Builtin(e), listed(p.mcp, def)...))
		},
		Run: shared,
	})
	cfg := shared
	cfg.Model = p.model
	cfg.Agent = agent.Definition{Name: "main", MaxTurns: spec.Settings.MaxTurns,
		Timeout: time.Duration(spec.Settings.TimeoutMinutes * float64(time.Minute))}
	env.Skills = p.skills
	for _, s := range p.skills {
		cfg.Skills = append(cfg.Skills, agent.SkillInfo{Name: s.Name, Description: s.Description})
	}
	cfg.Tools = p.wrap(slices.Concat(tools.Builtin(env), subagents, p.mcp))
	cfg.System = spec.System
	cfg.BeforeComplete = spec.BeforeComplete
	cfg.RunID = spec.RunID
	cfg.MaxBudget = spec.Settings.MaxBudget
	return cfg
}

// openTrace opens the run's trace file, if it has one.
func (h *Host) openTrace(run *Run, spec Spec) error {
	path := spec.TracePath
	if path == "" {
		if h.TraceDir == "" {
			return nil
		}
		path = trace.Path(h.TraceDir, spec.Root, spec.RunID)
		defer h.pruneTraces(retention(spec))
	}
	w, err := trace.Create(path, trace.Options{Secrets: h.traceSecrets(), Now: h.Now})
	if err != nil {
		return err
	}
	run.trace, run.TracePath = w, path
	return nil
}

// traceSecrets are the values a trace never holds: the host's secrets and
// those of the secret-looking variables of the environment.
func (h *Host) traceSecrets() []string {
	environ := h.Environ
	if environ == nil {
		environ = os.Environ()
	}
	return append(trace.SecretValues(environ), h.Secrets...)
}

// header is what the trace records of how the run was set up, beyond what
// the harness's configuration says: every subagent it could start (custom
// ones included, so a replay can start them), the skills it could activate,
// and the settings.
func (h *Host) header(spec Spec, p parts) trace.Header {
	settings := map[string]any{}
	if b, err := json.Marshal(spec.Settings); err == nil {
		json.Unmarshal(b, &settings)
	}
	for k, v := range spec.Record {
		settings[k] = v
	}
	settings["approvalMode"] = string(spec.Policy.Mode())
	// A server's env, headers and arguments may hold credentials: the
	// trace names the servers, and records their tools (MCPTools).
	delete(settings, "mcpServers")
	if len(spec.Settings.MCPServers) > 0 {
		settings["mcpServers"] = slices.Sorted(maps.Keys(spec.Settings.MCPServers))
	}
	hd := trace.Header{Version: h.Version, Workspace: spec.Root, Model: spec.Settings.Model, Settings: settings, UserDir: p.userDir}
	if spec.Session != nil {
		hd.Session = spec.Session.ID()
	}
	for _, d := range p.agents {
		hd.Subagents = append(hd.Subagents, trace.NewAgentDef(d))
	}
	for _, s := range p.skills {
		hd.Skills = append(hd.Skills, trace.Skill{Name: s.Name, Description: s.Description, Path: s.Path, Source: s.Source})
	}
	return hd
}

// Events starts the run and returns its event stream (see agent.Run),
// writing the trace and the session as it goes and closing them at the
// end. The run's MCP servers start first; the problems found while building
// the run, then what went wrong with its session and its MCP servers, follow
// run_start as warning events, each once, traced like every event.
func (r *Run) Events(ctx context.Context) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		defer r.Discard()
		warnings := slices.Clone(r.warnings)
		if s := r.session; s != nil {
			if err := s.BeginRun(r.Config.RunID, r.prompt, r.model); err != nil {
				warnings = append(warnings, fmt.Sprintf("this run is not kept in its session (a follow-up will not see it, a revert cannot undo it): %v", err))
			}
		}
		if r.prepare != nil {
			warnings = append(warnings, r.prepare(ctx)...)
		}
		sent := false
		defer func() {
			if !sent { // the run never started: its warnings go to the log
				for _, w := range warnings {
					r.warn(w)
				}
			}
		}()
		events := agent.Run(ctx, r.Config, r.Task)
		if r.trace != nil {
			events = r.trace.Run(ctx, r.Config, r.Task, r.header)
		}
		for ev, err := range events {
			if err == nil && ev.Type == agent.EventRunEnd && ev.RunID == r.Config.RunID {
				r.endSession(ev)
			}
			if !yield(ev, err) {
				return
			}
			if err != nil || ev.Type != agent.EventRunStart {
				continue
			}
			sent = true
			for _, w := range warnings {
				wev := warning(ev, w, r.now())
				if r.trace != nil {
					r.trace.Event(wev)
				}
				if !yield(wev, nil) {
					return
				}
			}
		}
	}
}

// endSession records the run's end in its session.
func (r *Run) endSession(ev agent.Event) {
	s := r.session
	if s == nil || ev.End == nil {
		return
	}
	var usage agent.Usage
	if ev.Usage != nil {
		usage = *ev.Usage
	}
	s.EndRun(*ev.End, usage)
	if err := s.Err(); err != nil {
		r.warn(fmt.Sprintf("session %s: %v", s.ID(), err))
	}
}

// SessionID is the run's session, "" when it has none.
func (r *Run) SessionID() string { return r.sessionID }

// Discard releases what a built run holds (its trace file, its session)
// when it will not run, or has run; Events does it at its end.
func (r *Run) Discard() {
	if r.trace != nil {
		if err := r.trace.Close(); err != nil {
			r.warn(fmt.Sprintf("trace %s: %v", r.TracePath, err))
		}
		r.trace = nil
	}
	if r.session != nil {
		r.session.Close()
		r.session = nil
	}
}

func (h *Host) warn(msg string) {
	if h.Warn != nil {
		h.Warn(msg)
	}
}

func (h *Host) now() time.Time {
	if h.Now != nil {
		return h.Now()
	}
	return time.Now()
}
