package lsp

import (
	"cmp"
	"context"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// After a change is applied, the model hears what the editor's diagnostics
// show of it (docs/protocol.md, "The editor's diagnostics"): the server
// waits, bounded, for the editor to report the changed files' new text,
// then compares every list that came since the change went out with the
// one before it.
//
// "New" is decided by matching, not by position: a problem after the change
// is the same as one before when its severity, source and message are the
// same; among equals, the one nearest the old line moved through the edit
// (lines inserted or deleted above it) is taken. A problem left unmatched
// after the change is new; one left unmatched before it is gone. Matching by
// exact line alone would call every problem below an inserted line new, and
// a multiset of messages alone could not tell which of two equal problems
// the change added.

// watchesDiagnostics reports whether the model hears the editor's
// diagnostics after its changes: the client sends them, and the model takes
// a turn after each change (with confirm: run, the run ends when its changes
// are applied).
func (p *proposal) watchesDiagnostics() bool {
	return p.r.spec.settings.Diagnostics && p.r.stage == nil
}

// A diagTarget is a file an applied change edited.
type diagTarget struct {
	path string
	// before is the version of the buffer the change was made against; a
	// list for it or an older one is not about the new text. nil: unknown.
	before *int32
	// moved takes a 0-based line of the text before the change to its line
	// after it.
	moved func(line int) int
}

// addDiagnostics waits for the editor's diagnostics of the applied changes
// of ds and tells the first applied decision what they show, compared with
// before (the store when the proposal went out).
func (p *proposal) addDiagnostics(ctx context.Context, before diagSnapshot, ds []agent.Decision) {
	first := -1
	var targets []diagTarget
	for i, d := range ds {
		if d.Outcome != agent.OutcomeApplied {
			continue
		}
		if first < 0 {
			first = i
		}
		f := p.files[i]
		final := cmp.Or(d.Final, f.new)
		targets = append(targets, diagTarget{path: f.path, before: f.version, moved: edits.LineMap(f.old, final)})
	}
	if first < 0 {
		return
	}
	p.r.report(ctx, "Waiting for the editor's diagnostics", -1)
	bound := p.s.diagnosticsWait()
	inTime := p.s.awaitDiagnostics(ctx, before.seq, targets, bound)
	if ctx.Err() != nil {
		return
	}
	added, gone := compareDiagnostics(before, p.s.diags.snapshot(), targets)
	ds[first].Diagnostics = &agent.DiagnosticsAfter{InTime: inTime, Wait: bound, New: added, Gone: gone}
}

// awaitDiagnostics waits until the editor sent, since the store's count
// since, a list for the new text of every target, or bound passes, or ctx
// ends. It reports whether every list came.
func (s *Server) awaitDiagnostics(ctx context.Context, since uint64, targets []diagTarget, bound time.Duration) bool {
	expired := s.after(bound)
	for {
		changed := s.diags.next()
		if s.diags.arrived(since, targets) {
			return true
		}
		select {
		case <-changed:
		case <-expired:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// arrived reports whether every target has a list that came after since,
// for a version later than the one its change was made against (or for a
// version the editor did not name).
func (d *diagStore) arrived(since uint64, targets []diagTarget) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range targets {
		dd, ok := d.byPath[t.path]
		if !ok || dd.seq <= since || dd.version != nil && t.before != nil && *dd.version <= *t.before {
			return false
		}
	}
	return true
}

// compareDiagnostics returns the problems of after that before did not
// have, and those of before that after does not, by path, for every
// document whose list came since before.
func compareDiagnostics(before, after diagSnapshot, targets []diagTarget) (added, gone map[string][]agent.Diagnostic) {
	moves := make(map[string]func(int) int, len(targets))
	for _, t := range targets {
		moves[t.path] = t.moved
	}
	paths := make(map[string]bool)
	for p, dd := range after.byPath {
		if dd.seq > before.seq {
			paths[p] = true
		}
	}
	for p := range before.byPath {
		if _, ok := after.byPath[p]; !ok {
			paths[p] = true // cleared, and forgotten since
		}
	}
	for p := range paths {
		a, g := diffProblems(agentDiagnostics(before.byPath[p].list), agentDiagnostics(after.byPath[p].list), moves[p])
		if len(a) > 0 {
			added = setDefault(added, p, a)
		}
		if len(g) > 0 {
			gone = setDefault(gone, p, g)
		}
	}
	return added, gone
}

func setDefault(m map[string][]agent.Diagnostic, k string, v []agent.Diagnostic) map[string][]agent.Diagnostic {
	if m == nil {
		m = make(map[string][]agent.Diagnostic)
	}
	m[k] = v
	return m
}

// diffProblems matches the problems of one document before and after a
// change (see the top of this file); moved, if not nil, takes a 0-based
// line before the change to its line after.
func diffProblems(before, after []agent.Diagnostic, moved func(int) int) (added, gone []agent.Diagnostic) {
	type key struct{ severity, source, message string }
	keyOf := func(d agent.Diagnostic) key { return key{d.Severity, d.Source, strings.TrimSpace(d.Message)} }
	candidates := make(map[key][]int) // indexes into after, by key
	for j, d := range after {
		k := keyOf(d)
		candidates[k] = append(candidates[k], j)
	}
	matched := make([]bool, len(after))
	for _, b := range before {
		line := b.Line
		if moved != nil {
			line = moved(b.Line-1) + 1
		}
		best := -1
		for _, j := range candidates[keyOf(b)] {
			if !matched[j] && (best < 0 || distance(after[j].Line, line) < distance(after[best].Line, line)) {
				best = j
			}
		}
		if best < 0 {
			gone = append(gone, b)
			continue
		}
		matched[best] = true
	}
	for j, d := range after {
		if !matched[j] {
			added = append(added, d)
		}
	}
	return added, gone
}

func distance(a, b int) int { return max(a-b, b-a) }

func (s *Server) diagnosticsWait() time.Duration {
	if s.cfg.DiagnosticsWait > 0 {
		return s.cfg.DiagnosticsWait
	}
	return 2 * time.Second
}
