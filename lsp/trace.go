package lsp

import (
	"context"
	"encoding/json"
	"iter"
	"os"
	"time"

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
	w, err := trace.Create(path, trace.Options{Secrets: trace.SecretValues(os.Environ()), Now: s.now})
	if err != nil {
		s.log.Warn("run not traced", "run", spec.h.id, "err", err)
		return agent.Run
	}
	s.log.Debug("tracing run", "run", spec.h.id, "path", path)
	s.pruneTraces(dir, trace.RetentionOf(spec.settings.TraceMaxAgeDays, spec.settings.TraceMaxSizeMB))
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

// pruneEvery is the least time between two prunes of the trace folder.
const pruneEvery = time.Minute

// pruning is the state of the trace folder's pruning.
type pruning struct {
	busy bool
	last time.Time
}

// pruneTraces deletes the traces in dir that r does not keep, in the
// background: a run never waits for it. It prunes at most once a minute and
// never twice at once, and records r for `agentls run` (trace.SaveRetention).
func (s *Server) pruneTraces(dir string, r trace.Retention) {
	now := s.now()
	s.mu.Lock()
	if s.prune.busy || !s.prune.last.IsZero() && now.Sub(s.prune.last) < pruneEvery {
		s.mu.Unlock()
		return
	}
	s.prune = pruning{busy: true, last: now}
	s.mu.Unlock()
	done := func() {
		s.mu.Lock()
		s.prune.busy = false
		s.mu.Unlock()
	}
	started := s.goTask(func() {
		defer done()
		if trace.LoadRetention(dir) != r {
			if err := trace.SaveRetention(dir, r); err != nil {
				s.log.Warn("trace retention not recorded", "err", err)
			}
		}
		// Not cancelled with the connection: a prune is bounded, and one cut
		// short at random would make the folder's state depend on timing.
		p, err := trace.PruneTraces(context.WithoutCancel(s.root), dir, r, now)
		if err != nil {
			s.log.Warn("pruning traces", "err", err)
		}
		if p.Files > 0 {
			s.log.Info("pruned traces", "files", p.Files, "bytes", p.Bytes)
		}
	})
	if !started {
		done()
	}
}
