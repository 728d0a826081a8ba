package lsp

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// proposer sends each change of a run to the editor as its own proposal
// (confirm: each).
type proposer struct {
	s    *Server
	r    *liveRun
	ws   *workspace.Workspace
	caps clientCaps
	auto bool // autoEdit: no confirmation
}

func (p *proposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	ds, err := p.s.propose(ctx, p.r, []change{{
		path: ch.Path, name: ch.Name, target: ch.Target, base: ch.Old, mine: ch.New, create: ch.Create, reason: ch.Reason,
	}})
	if err != nil {
		return agent.Decision{}, err
	}
	return ds[0], nil
}

// A change is one file's change as a tool computed it: base → mine.
type change struct {
	path, name string
	// target is the real file the tool checked, path with every symlink
	// followed, which name shows the user; "": not checked.
	target     string
	base, mine string
	create     bool
	// delete deletes the file, which must still hold base (a revert of a
	// run that created it).
	delete bool
	reason string
}

// file is the file c writes: its target, when the tool checked one. The
// editor is sent an edit of that file, the one the user is shown, and not
// of a symlink to it: a buffer of the link would be another buffer of the
// same file, and the editor's write through the link would follow it
// wherever it leads by then.
func (c change) file() string { return cmp.Or(c.target, c.path) }

// A fileChange is a change made ready to send: checked against the editor's
// buffer as it is now, and rebased onto it when the buffer moved since the
// tool read it. Its path is the file it writes (change.file).
type fileChange struct {
	change
	old, new string // the buffer now, and the buffer with the change
	version  *int32 // the buffer's version when the file is open
	open     bool
	rebased  bool
}

// prepare checks c against the buffer now. ok is false when the change no
// longer applies; d then says why. A file the editor answered applied for
// but has not reported since is what the edit left, at a version unknown.
func prepare(ws *workspace.Workspace, applied *appliedEdits, c change) (fc fileChange, d agent.Decision, ok bool) {
	fc.change = c
	if c.target != "" {
		// The path the model named must still lead to the file the tool
		// checked (and the user is shown): what the model was told, and
		// will be told, is about that file.
		if hops, err := ws.Links(c.path); err != nil || hops[len(hops)-1] != c.target {
			return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " no longer leads to the file that was checked (a symlink changed)"}, false
		}
	}
	fc.path = c.file()
	cur, err := ws.ReadFile(fc.path)
	unversioned := false
	if text, ok := applied.text(fc.path); ok {
		cur.Text, err, unversioned = text, nil, true
	}
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fc, agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, false
	}
	switch {
	case c.delete:
		if !exists {
			return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " was deleted meanwhile"}, false
		}
		if cur.Text != c.base {
			return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " changed meanwhile"}, false
		}
		fc.old, fc.new = cur.Text, ""
	case c.create:
		if exists && cur.Text != "" {
			return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " was created meanwhile"}, false
		}
		fc.create = !exists
		fc.old, fc.new = "", c.mine
	default:
		if !exists {
			return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " was deleted meanwhile"}, false
		}
		fc.old, fc.new = cur.Text, c.mine
		if cur.Text != c.base {
			merged, ok := edits.Rebase(c.base, c.mine, cur.Text)
			if !ok {
				return fc, agent.Decision{Outcome: agent.OutcomeConflict, Message: c.name + " changed since it was read"}, false
			}
			fc.new, fc.rebased = merged, true
		}
	}
	if cur.Open {
		v := cur.Version
		fc.version, fc.open = &v, true
	}
	if unversioned {
		fc.version = nil
	}
	return fc, agent.Decision{}, true
}

// propose sends changes to the editor as one proposal, after the user's
// confirmation where the client cannot ask itself, and returns one decision
// per change. The proposal is all or nothing: a change that no longer
// applies stops the others. After a cancel nothing more is asked or sent.
func (s *Server) propose(ctx context.Context, r *liveRun, cs []change) ([]agent.Decision, error) {
	paths := make([]string, len(cs))
	for i, c := range cs {
		paths[i] = c.file()
	}
	unlock, err := s.files.lockAll(ctx, paths)
	if err != nil {
		return nil, err
	}
	defer unlock()

	fcs, ds, ok := prepareAll(r.spec.ws, &s.applied, cs)
	if !ok {
		return ds, nil
	}
	p := &proposal{s: s, r: r, files: fcs}
	if !r.autoEdit() && !r.spec.caps.confirms() {
		yes, reason, err := p.ask(ctx)
		if err != nil {
			return nil, err
		}
		if !yes {
			return same(len(cs), agent.Decision{Outcome: agent.OutcomeRejected, Message: reason}), nil
		}
		// The user may have typed while the question was open.
		if p.files, ds, ok = prepareAll(r.spec.ws, &s.applied, cs); !ok {
			return ds, nil
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err // nothing is proposed after a cancel
	}
	return p.send(ctx)
}

// prepareAll prepares every change; if one no longer applies, every
// decision says so.
func prepareAll(ws *workspace.Workspace, applied *appliedEdits, cs []change) ([]fileChange, []agent.Decision, bool) {
	fcs := make([]fileChange, len(cs))
	var failed []string
	var first agent.Decision
	for i, c := range cs {
		fc, d, ok := prepare(ws, applied, c)
		if !ok {
			if failed == nil {
				first = d
			}
			failed = append(failed, c.name)
		}
		fcs[i] = fc
	}
	if failed == nil {
		return fcs, nil, true
	}
	if len(cs) > 1 {
		first.Message = "not proposed: " + strings.Join(failed, ", ") + " changed since the run read them"
	}
	return nil, same(len(cs), first), false
}

func same(n int, d agent.Decision) []agent.Decision {
	ds := make([]agent.Decision, n)
	for i := range ds {
		ds[i] = d
	}
	return ds
}

func (r *liveRun) autoEdit() bool { return r.spec.settings.ApprovalMode == "autoEdit" }

// A proposal is changes on their way to the editor.
type proposal struct {
	s     *Server
	r     *liveRun
	files []fileChange
}

// stat is the proposal's line counts.
func (p *proposal) stat() edits.Stat {
	var st edits.Stat
	for _, f := range p.files {
		d := edits.DiffStat(f.old, f.new)
		st.Added += d.Added
		st.Deleted += d.Deleted
	}
	return st
}

// names lists the files, "new.go (new)" for new ones.
func (p *proposal) names() string {
	var ns []string
	for _, f := range p.files {
		n := f.name
		switch {
		case f.create:
			n += " (new)"
		case f.delete:
			n += " (delete)"
		}
		ns = append(ns, n)
	}
	return strings.Join(ns, ", ")
}

// fileLocks serializes proposals to one file across runs, so two runs never
// have two proposals open on the same buffer.
type fileLocks struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

// lockAll waits for the locks of every path, taken in sorted order so that
// two proposals never wait for each other, or for ctx's end.
func (l *fileLocks) lockAll(ctx context.Context, paths []string) (unlock func(), err error) {
	paths = slices.Clone(paths)
	slices.Sort(paths)
	paths = slices.Compact(paths)
	var held []chan struct{}
	release := func() {
		for _, c := range held {
			<-c
		}
	}
	for _, p := range paths {
		c := l.lockChan(p)
		select {
		case c <- struct{}{}:
			held = append(held, c)
		case <-ctx.Done():
			release()
			return nil, ctx.Err()
		}
	}
	return release, nil
}

func (l *fileLocks) lockChan(path string) chan struct{} {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.locks == nil {
		l.locks = make(map[string]chan struct{})
	}
	c, ok := l.locks[path]
	if !ok {
		c = make(chan struct{}, 1)
		l.locks[path] = c
	}
	return c
}

func newID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
