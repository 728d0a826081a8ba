package lsp

import (
	"context"
	"encoding/json"
	"iter"
	"os"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/subagent"
	"github.com/agentls/agentls/agent/trace"
)

// traceRun opens the trace of the run spec describes, in Config.TraceDir
// (none when it is ""), and returns what to run the harness with: agent.Run,
// writing the trace.
// It wraps spec.model so that the model calls of the run's subagents are
// traced too: call it before the run's tools are made. A run whose trace
// cannot be written runs untraced, and the log says why.
func (s *Server) traceRun(spec *runSpec) func(context.Context, agent.Config, agent.Task) iter.Seq2[agent.Event, error] {
	dir := s.cfg.TraceDir
	if dir == "" {
		return agent.Run
	}
	path := trace.Path(dir, spec.root, spec.h.id)
	environ := s.cfg.Environ
	if environ == nil {
		environ = os.Environ()
	}
	w, err := trace.Create(path, trace.Options{Secrets: append(trace.SecretValues(environ), s.cfg.Secrets...), Now: s.now})
	if err != nil {
		s.log.Warn("run not traced", "run", spec.h.id, "err", err)
		return agent.Run
	}
	s.log.Debug("tracing run", "run", spec.h.id, "path", path)
	spec.model = w.Model(spec.model)
	var settings map[string]any
	if b, err := json.Marshal(spec.settings); err == nil {
		json.Unmarshal(b, &settings)
	}
	h := trace.Header{Version: s.cfg.Version, Workspace: spec.root, Model: spec.settings.Model, Settings: settings,
		Subagents: []trace.AgentDef{trace.NewAgentDef(subagent.Investigator())}}
	return func(ctx context.Context, cfg agent.Config, task agent.Task) iter.Seq2[agent.Event, error] {
		return func(yield func(agent.Event, error) bool) {
			defer func() {
				if err := w.Close(); err != nil {
					s.log.Warn("trace", "run", spec.h.id, "err", err)
				}
			}()
			for ev, err := range w.Run(ctx, cfg, task, h) {
				if !yield(ev, err) {
					return
				}
			}
		}
	}
}
