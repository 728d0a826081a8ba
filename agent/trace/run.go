package trace

import (
	"context"
	"iter"
	"slices"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/memory"
)

// Policy returns a Policy layer that asks p and records each verdict. A
// nil p decides as the harness does without a policy: calls of Approvable
// tools ask, others run. Wrapping twice with one Writer records once.
func (w *Writer) Policy(p agent.Policy) agent.Policy {
	if l, ok := p.(*policyLayer); ok && l.w == w {
		return p
	}
	return &policyLayer{w: w, next: p}
}

type policyLayer struct {
	w    *Writer
	next agent.Policy
}

// Check implements agent.Policy.
func (l *policyLayer) Check(c agent.PolicyCall) agent.PolicyDecision {
	d := agent.PolicyDecision{Verdict: agent.VerdictAllow}
	switch {
	case l.next != nil:
		d = l.next.Check(c)
	case c.Approval != nil:
		d.Verdict = agent.VerdictAsk
	}
	rec := &PolicyCheck{Agent: c.Agent, Tool: c.Tool, Args: c.Args, Verdict: d.Verdict, Rule: d.Rule, Message: d.Message}
	if id, ok := l.w.claim(c.Agent, c.Tool, c.Args); ok {
		rec.RunID, rec.CallID = id.run, id.call
	}
	l.w.write(Record{Type: TypePolicy, Policy: rec})
	return d
}

// Run is agent.Run writing the run's trace: a header made of h and what cfg
// and task say, then the records of the run as it goes. cfg's Model and
// Policy are wrapped (see [Writer.Model], [Writer.Policy]); a run id is
// made when cfg has none. Every event is recorded before the consumer sees
// it.
func (w *Writer) Run(ctx context.Context, cfg agent.Config, task agent.Task, h Header) iter.Seq2[agent.Event, error] {
	return func(yield func(agent.Event, error) bool) {
		if cfg.Agent.Name == "" {
			cfg.Agent.Name = "main"
		}
		if cfg.RunID == "" {
			cfg.RunID = NewRunID(cfg.Agent.Name)
		}
		if cfg.Model != nil {
			cfg.Model = w.Model(cfg.Model)
		}
		cfg.Policy = w.Policy(cfg.Policy)
		w.write(Record{Type: TypeHeader, Header: w.header(cfg, task, h)})
		for ev, err := range agent.Run(ctx, cfg, task) {
			if err != nil {
				w.write(Record{Type: TypeError, Error: err.Error()})
				yield(ev, err)
				return
			}
			w.Event(ev)
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// header completes h from the run's configuration.
func (w *Writer) header(cfg agent.Config, task agent.Task, h Header) *Header {
	h.Format = Format
	h.RunID = cfg.RunID
	if h.Started.IsZero() {
		h.Started = w.opts.Now()
	}
	h.Task = Task{Prompt: task.Prompt, File: task.File, Diagnostics: task.Diagnostics, Notes: task.Notes}
	if s := task.Selection; s != nil {
		h.Task.Selection = &Selection{StartLine: s.StartLine, EndLine: s.EndLine, Text: s.Text}
	}
	h.Agent = NewAgentDef(cfg.Agent)
	h.Tools = nil
	for _, t := range cfg.Tools {
		name := t.Declaration().Name
		if cfg.Agent.Tools == nil || slices.Contains(cfg.Agent.Tools, name) {
			h.Tools = append(h.Tools, name)
		}
	}
	h.Tools = append(h.Tools, agent.CompleteTaskName)
	h.Context = nil
	for _, f := range cfg.Context {
		h.Context = append(h.Context, Context{Path: f.Path, Bytes: len(f.Content), Memories: len(memory.Facts(f.Content))})
	}
	if e := cfg.Environment; e != nil {
		h.Environment = &Environment{OS: e.OS, Date: e.Date, Folders: e.Folders}
	}
	h.ContextWindow, h.CompressAt = cfg.ContextWindow, cfg.CompressAt
	h.History = cfg.History
	return &h
}
