package lsp

import (
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"

	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

// A runSpec is everything a run needs, captured when it starts.
type runSpec struct {
	h        *runHandle
	args     contract.RunArgs
	task     agent.Task
	root     string
	settings contract.Settings
	caps     clientCaps
	ws       *workspace.Workspace
	token    protocol.ProgressToken
	session  *session.Writer // the session the run belongs to, nil for none
}

// startRun validates a run request, builds the run, starts it in the
// background and returns its id at once: the run never holds up the request
// (clients time out long commands). What stops a run before it starts (no
// API key, a bad argument) is the request's error.
func (s *Server) startRun(ctx context.Context, args contract.RunArgs, token protocol.ProgressToken) (contract.RunResult, error) {
	if err := s.settingsReady(ctx); err != nil {
		return contract.RunResult{}, protocol.ErrRequestCancelled
	}
	s.refreshSettings(ctx)
	s.mu.Lock()
	spec := runSpec{args: args, settings: s.settings, caps: s.caps, ws: s.ws, token: token}
	s.mu.Unlock()
	task, root, err := taskFor(spec.ws, args, spec.caps.encoding)
	if err != nil {
		return contract.RunResult{}, err
	}
	spec.task, spec.root = task, root
	runCtx, cancel := context.WithCancel(s.root)
	spec.h = &runHandle{id: "main-" + newID(), cancel: cancel}
	if spec.session, err = s.openSession(&spec); err != nil {
		cancel()
		return contract.RunResult{}, err
	}
	r := s.newLiveRun(spec)
	run, err := s.host.Build(ctx, r.runnerSpec(ctx))
	if err != nil {
		cancel()
		if spec.session != nil {
			spec.session.Close()
		}
		return contract.RunResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls: "+err.Error())
	}
	started := s.runs.start(spec.h, func() {
		defer cancel()
		r.drive(runCtx, run)
	})
	if !started {
		cancel()
		run.Discard()
		return contract.RunResult{}, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls is shutting down")
	}
	return contract.RunResult{RunID: spec.h.id, SessionID: run.SessionID()}, nil
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

// runnerSpec is what the run builder needs of this run: the editor's
// buffers (under the stage with confirm: run) as its files, proposals
// through workspace/applyEdit, approvals through showMessageRequest.
func (r *liveRun) runnerSpec(ctx context.Context) runner.Spec {
	spec := r.spec
	rs := runner.Spec{
		RunID: spec.h.id, Workspace: spec.ws, Root: spec.root, Files: r.fs(),
		Approver: r.s.approver(spec), Policy: r.s.runPolicy(ctx, spec),
		Settings: spec.settings, Task: spec.task, System: r.systemNote(), Session: spec.session,
		Unsaved: r.unsaved,
	}
	if p := r.proposer(); p != nil {
		rs.Proposer = p
	}
	if spec.args.URI != "" {
		rs.ActiveFile, _ = workspace.PathFromURI(spec.args.URI)
	}
	rs.Diagnostics = r.diagnostics(rs.ActiveFile)
	if r.stage != nil {
		rs.BeforeComplete = r.beforeComplete
	}
	return rs
}

// diagnostics is where the run's get_diagnostics reads: the editor's
// diagnostics when its plugin sends them, else the ones the run's command
// carried for the active file, else none (no tool).
func (r *liveRun) diagnostics(active string) func(abs string) map[string][]agent.Diagnostic {
	switch {
	case r.spec.settings.Diagnostics:
		return r.s.diags.problems
	case active != "" && len(r.spec.task.Diagnostics) > 0:
		carried := r.spec.task.Diagnostics
		return func(abs string) map[string][]agent.Diagnostic {
			if abs != "" && abs != active {
				return nil
			}
			return map[string][]agent.Diagnostic{active: carried}
		}
	}
	return nil
}

// drive runs the harness and turns its events into progress, log lines and
// agentls/event notifications; the run's changes reach the editor through
// its proposer, or, with confirm: run, as one proposal at the end.
func (r *liveRun) drive(ctx context.Context, run *runner.Run) {
	r.run = run
	r.begin(ctx)
	end := &agent.RunEnd{Reason: agent.StopError, Error: "the run ended without a result"}
	r.maxTurns = max(1, run.Config.Agent.MaxTurns)
	for ev, err := range run.Events(ctx) {
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
func (r *liveRun) systemNote() string {
	switch {
	case !r.canPropose():
		return "This run is read-only: you cannot propose changes to files. Answer with what you found."
	case r.stage != nil:
		return "Your changes are staged: the edit tools report them accepted, and later reads see them, but the user reviews all of them together after you call complete_task."
	}
	return ""
}

// unsaved names the files the editor holds with changes not on disk,
// relative to the run's folder: a shell command sees the disk.
func (r *liveRun) unsaved() []string {
	return r.s.unsavedNames(r.spec.ws, r.spec.root)
}

// unsavedNames names the open buffers that differ from the disk, and the
// files the editor answered it edited whose text is not the disk's,
// relative to root.
func (s *Server) unsavedNames(ws *workspace.Workspace, root string) []string {
	paths := ws.Unsaved()
	for p, text := range s.applied.all() {
		if disk, err := os.ReadFile(p); (err != nil || string(disk) != text) && !slices.Contains(paths, p) {
			paths = append(paths, p)
		}
	}
	slices.Sort(paths)
	f := ws.Folder(root)
	for i, p := range paths {
		paths[i] = f.Rel(p)
	}
	return paths
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
