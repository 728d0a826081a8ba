package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// A runSpec is everything a run needs, captured when it starts.
type runSpec struct {
	h        *runHandle
	task     agent.Task
	root     string
	model    agent.Model
	settings Settings
	caps     clientCaps
	ws       *workspace.Workspace
	token    protocol.ProgressToken
}

// startRun validates a run request, starts the run in the background and
// returns its id at once: the run never holds up the request (clients time
// out long commands).
func (s *Server) startRun(ctx context.Context, args RunArgs, token protocol.ProgressToken) (string, error) {
	s.mu.Lock()
	spec := runSpec{settings: s.settings, caps: s.caps, ws: s.ws, token: token}
	s.mu.Unlock()
	task, root, err := s.taskFor(spec.ws, args, spec.caps.encoding)
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
	s.runs.start(spec.h, func() {
		defer cancel()
		s.drive(runCtx, spec)
	})
	return spec.h.id, nil
}

// taskFor builds the agent's task from the command's arguments: the file, the
// selected text and the diagnostics in scope.
func (s *Server) taskFor(ws *workspace.Workspace, args RunArgs, enc edits.Encoding) (agent.Task, string, error) {
	task := agent.Task{Prompt: args.Prompt}
	root := ws.Roots()[0]
	if args.URI == "" {
		return task, root, nil
	}
	path, err := workspace.PathFromURI(args.URI)
	if err != nil {
		return task, "", fmt.Errorf("%w: %v", errInvalidParams, err)
	}
	r, ok := ws.RootFor(path)
	if !ok {
		return task, "", fmt.Errorf("%w: %s is outside the workspace folders", errInvalidParams, args.URI)
	}
	root = r
	task.File = ws.Rel(path)
	f, err := ws.ReadFile(path)
	if err != nil {
		return task, "", fmt.Errorf("%w: %v", errInvalidParams, err)
	}
	if args.Range != nil {
		m := edits.NewMapper(f.Text)
		start, end, err := m.RangeOffsets(*args.Range, enc)
		if err != nil {
			return task, "", fmt.Errorf("%w: range: %v", errInvalidParams, err)
		}
		if start < end {
			task.Selection = &agent.Selection{
				StartLine: int(args.Range.Start.Line) + 1,
				EndLine:   int(args.Range.End.Line) + 1,
				Text:      f.Text[start:end],
			}
		}
	}
	for _, d := range args.Diagnostics {
		task.Diagnostics = append(task.Diagnostics, agent.Diagnostic{
			Line: int(d.Range.Start.Line) + 1, Message: diagnosticMessage(d), Source: optional(d.Source), Severity: severity(d.Severity),
		})
	}
	return task, root, nil
}

// drive runs the harness and turns its events into progress, log lines and
// agentls/event notifications.
func (s *Server) drive(ctx context.Context, spec runSpec) {
	prog := s.beginProgress(ctx, spec.h, spec.token, "agentls: "+shorten(spec.task.Prompt, 50))
	env := tools.Env{FS: &runFS{ws: spec.ws, root: spec.root}}
	if spec.caps.applyEdit && spec.settings.ApprovalMode != "plan" {
		env.Proposer = &proposer{s: s, ws: spec.ws, caps: spec.caps, auto: spec.settings.ApprovalMode == "autoEdit"}
	}
	cfg := agent.Config{
		Model: spec.model,
		Agent: agent.Definition{Name: "main", MaxTurns: spec.settings.MaxTurns,
			Timeout: time.Duration(spec.settings.TimeoutMinutes * float64(time.Minute))},
		Tools: tools.Builtin(env),
		RunID: spec.h.id,
		Now:   s.now,
	}
	if env.Proposer == nil {
		cfg.System = "This run is read-only: you cannot propose changes to files. Answer with what you found."
	}
	var seq atomic.Int64
	end := &agent.RunEnd{Reason: agent.StopError, Error: "the run ended without a result"}
	for ev, err := range agent.Run(ctx, cfg, spec.task) {
		if err != nil {
			end = &agent.RunEnd{Reason: agent.StopError, Error: err.Error()}
			break
		}
		if spec.settings.Events {
			s.notifyEvent(ctx, seq.Add(1), ev)
		}
		if ev.Type == agent.EventRunEnd {
			end = ev.End
			continue
		}
		if msg := reportMessage(ev); msg != "" {
			pct := uint32(min(100, ev.Turn*100/max(1, cfg.Agent.MaxTurns)))
			prog.report(ctx, msg, &pct)
		}
	}
	msg := endMessage(end)
	prog.end(ctx, msg)
	s.log.Info("run ended", "run", spec.h.id, "reason", end.Reason, "turns", end.Turns)
	if !spec.settings.Events {
		typ := protocol.MessageTypeInfo
		if end.Reason != agent.StopGoal {
			typ = protocol.MessageTypeWarning
		}
		s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: typ, Message: "agentls: " + shorten(msg, 400)})
	}
}

// reportMessage is the progress line for an event, or "".
func reportMessage(ev agent.Event) string {
	switch ev.Type {
	case agent.EventThought:
		return ev.Subject
	case agent.EventToolCall:
		if ev.Call.Name == agent.CompleteTaskName {
			return "Finishing"
		}
		if ev.Call.Display != "" {
			return ev.Call.Display
		}
		return "Calling " + ev.Call.Name
	case agent.EventEditProposed:
		return fmt.Sprintf("Proposing change to %s (%s); waiting for your confirmation", ev.Edit.Name, edits.Stat{Added: ev.Edit.Added, Deleted: ev.Edit.Deleted})
	case agent.EventEditDecided:
		return fmt.Sprintf("Change to %s %s", ev.Edit.Name, ev.Edit.Outcome)
	}
	return ""
}

// endMessage is the progress end message: the result, or why the run stopped.
func endMessage(end *agent.RunEnd) string {
	if end.Reason == agent.StopGoal {
		return end.Result
	}
	msg := "stopped (" + string(end.Reason) + ")"
	if end.Error != "" {
		msg += ": " + end.Error
	}
	return msg
}

// eventNotification is the payload of agentls/event.
type eventNotification struct {
	Seq int64 `json:"seq"`
	agent.Event
}

// MethodEvent is the structured event notification plugins opt in to.
const MethodEvent = "agentls/event"

func (s *Server) notifyEvent(ctx context.Context, seq int64, ev agent.Event) {
	b, err := json.Marshal(eventNotification{Seq: seq, Event: ev})
	if err != nil {
		s.log.Error("event: marshal", "err", err)
		return
	}
	if err := s.conn.Notify(context.WithoutCancel(ctx), MethodEvent, jsonrpc2.RawMessage(b)); err != nil {
		s.log.Debug("event: notify", "err", err)
	}
}

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

func (s *Server) clientCaps() clientCaps {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
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
