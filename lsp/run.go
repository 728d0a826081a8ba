package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"fmt"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

// A runSpec is everything a run needs, captured when it starts.
type runSpec struct {
	h        *runHandle
	args     contract.RunArgs
	task     agent.Task
	root     string
	model    agent.Model
	settings contract.Settings
	caps     clientCaps
	ws       *workspace.Workspace
	token    protocol.ProgressToken
}

// startRun validates a run request, starts the run in the background and
// returns its id at once: the run never holds up the request (clients time
// out long commands).
func (s *Server) startRun(ctx context.Context, args contract.RunArgs, token protocol.ProgressToken) (string, error) {
	if err := s.settingsReady(ctx); err != nil {
		return "", protocol.ErrRequestCancelled
	}
	s.mu.Lock()
	spec := runSpec{args: args, settings: s.settings, caps: s.caps, ws: s.ws, token: token}
	s.mu.Unlock()
	task, root, err := taskFor(spec.ws, args, spec.caps.encoding)
	if err != nil {
		return "", err
	}
	spec.task, spec.root = task, root
	if s.cfg.NewModel == nil {
		return "", jsonrpc2.NewError(jsonrpc2.InternalError, "no model configured")
	}
	spec.model, err = s.cfg.NewModel(ctx, spec.settings.Model)
	if err != nil {
		return "", jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls: "+err.Error())
	}
	runCtx, cancel := context.WithCancel(s.root)
	spec.h = &runHandle{id: "main-" + newID(), cancel: cancel}
	started := s.runs.start(spec.h, func() {
		defer cancel()
		s.drive(runCtx, spec)
	})
	if !started {
		cancel()
		return "", jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls is shutting down")
	}
	return spec.h.id, nil
}

// taskFor builds the agent's task from the command's arguments: the file, the
// selected text and the diagnostics in scope, with the prompt's ${…}
// expanded. The run's root is the workspace folder that holds the file.
func taskFor(ws *workspace.Workspace, args contract.RunArgs, enc lspedit.Encoding) (agent.Task, string, error) {
	task := agent.Task{}
	root := ws.Roots()[0]
	var vars templateVars
	vars.instruction = args.Instruction
	if args.URI != "" {
		path, err := workspace.PathFromURI(args.URI)
		if err != nil {
			return task, "", fmt.Errorf("%w: %v", errInvalidParams, err)
		}
		r, ok := ws.RootFor(path)
		if !ok {
			return task, "", fmt.Errorf("%w: %s is outside the workspace folders", errInvalidParams, args.URI)
		}
		root = r
		task.File = ws.Folder(root).Rel(path)
		vars.file = task.File
		f, err := ws.ReadFile(path)
		if err != nil {
			return task, "", fmt.Errorf("%w: %v", errInvalidParams, err)
		}
		if args.Range != nil {
			start, end, err := lspedit.NewMapper(f.Text).RangeOffsets(*args.Range, enc)
			if err != nil {
				return task, "", fmt.Errorf("%w: range: %v", errInvalidParams, err)
			}
			if start < end {
				task.Selection = &agent.Selection{
					StartLine: int(args.Range.Start.Line) + 1,
					EndLine:   int(args.Range.End.Line) + 1,
					Text:      f.Text[start:end],
				}
				vars.selection = task.Selection.Text
			}
		}
	}
	for _, d := range args.Diagnostics {
		task.Diagnostics = append(task.Diagnostics, agent.Diagnostic{
			Line: int(d.Range.Start.Line) + 1, Message: diagnosticMessage(d), Source: optional(d.Source), Severity: severity(d.Severity),
		})
	}
	vars.diagnostics = diagnosticsText(args.Diagnostics)
	task.Prompt = expand(args.Prompt, vars)
	return task, root, nil
}

// drive runs the harness and turns its events into progress, log lines and
// agentls/event notifications; the run's changes reach the editor through
// its proposer, or, with confirm: run, as one proposal at the end.
func (s *Server) drive(ctx context.Context, spec runSpec) {
	runAgent := s.traceRun(&spec) // before the tools: it wraps the run's model
	r := s.newLiveRun(ctx, spec)
	pol := s.runPolicy(ctx, spec)
	env := tools.Env{FS: r.fs(), Mode: pol.Mode(), Policy: pol,
		ShellTimeout: time.Duration(spec.settings.ShellTimeoutSeconds * float64(time.Second))}
	if p := r.proposer(); p != nil {
		env.Proposer = p
	}
	approver := s.approver(spec)
	cfg := agent.Config{
		Model: spec.model,
		Agent: agent.Definition{Name: "main", MaxTurns: spec.settings.MaxTurns,
			Timeout: time.Duration(spec.settings.TimeoutMinutes * float64(time.Minute))},
		Tools:    append(tools.Builtin(env), r.subagentTools(env, agent.Config{Now: s.now, Policy: pol, Approver: approver})...),
		Policy:   pol,
		Approver: approver,
		RunID:    spec.h.id,
		Now:      s.now,
	}
	cfg.Context, cfg.Environment = r.contextStack()
	cfg.System = r.systemNote(env.Proposer != nil)
	if r.stage != nil {
		cfg.BeforeComplete = r.beforeComplete
	}
	if spec.settings.Model == agent.ModelAuto {
		cfg.Agent.Model = agent.ModelAuto // the harness routes the run
	}
	end := &agent.RunEnd{Reason: agent.StopError, Error: "the run ended without a result"}
	r.maxTurns = max(1, cfg.Agent.MaxTurns)
	for ev, err := range runAgent(ctx, cfg, spec.task) {
		if err != nil {
			end = &agent.RunEnd{Reason: agent.StopError, Error: err.Error()}
			break
		}
		if ev.Type == agent.EventRunEnd {
			end = ev.End
			r.runEnd = ev
			continue
		}
		r.event(ctx, ev)
	}
	r.finish(ctx, end)
}

// systemNote is what the run's model is told about how its changes reach
// the user.
func (r *liveRun) systemNote(canPropose bool) string {
	switch {
	case !canPropose:
		return "This run is read-only: you cannot propose changes to files. Answer with what you found."
	case r.stage != nil:
		return "Your changes are staged: the edit tools report them accepted, and later reads see them, but the user reviews all of them together after you call complete_task."
	}
	return ""
}

func (s *Server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// shorten returns the first line of s, at most n characters.
func shorten(s string, n int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " …"
	}
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func severity(s protocol.DiagnosticSeverity) string {
	switch s {
	case protocol.DiagnosticSeverityError:
		return "error"
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return ""
}

// diagnosticMessage is a diagnostic's message as plain text (LSP 3.18 allows
// Markdown).
func diagnosticMessage(d protocol.Diagnostic) string {
	switch m := d.Message.(type) {
	case protocol.String:
		return string(m)
	case *protocol.MarkupContent:
		return m.Value
	}
	return ""
}

func optional[T any](o protocol.Optional[T]) T {
	v, _ := o.Get()
	return v
}
