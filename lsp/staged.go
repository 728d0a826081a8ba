package lsp

import (
	"github.com/agentls/agentls/contract"

	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// A stage holds the changes of a confirm: run run until the run reaches its
// goal: the run's reads see them (a layer over the overlay), and at the end
// they go to the editor as one proposal covering every file. It is the run's
// agent.Proposer.
type stage struct {
	ws *workspace.Workspace

	mu    sync.Mutex
	files map[string]*stagedFile // by the file a change writes (change.file)
}

// A stagedFile is one file's staged change.
type stagedFile struct {
	path, name string
	target     string // the real file the tool checked
	base       string // the file when the run first changed it; "" for a new file
	text       string // its staged content
	create     bool
	reasons    []string
}

func newStage(ws *workspace.Workspace) *stage {
	return &stage{ws: ws, files: make(map[string]*stagedFile)}
}

// Propose stages a change; the run hears that it is staged.
func (st *stage) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	if err := ctx.Err(); err != nil {
		return agent.Decision{}, err
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	// Two names of one file (a symlink and the file) stage one change;
	// the run reads it by the file's (tools read where a link leads).
	key := cmp.Or(ch.Target, ch.Path)
	f := st.files[key]
	if f == nil {
		f = &stagedFile{path: ch.Path, name: ch.Name, target: ch.Target, base: ch.Old, create: ch.Create}
		st.files[key] = f
	} else if ch.Old != f.text || ch.Target != f.target {
		return agent.Decision{Outcome: agent.OutcomeConflict}, nil
	}
	f.text = ch.New
	if ch.Reason != "" {
		f.reasons = append(f.reasons, ch.Reason)
	}
	return agent.Decision{Outcome: agent.OutcomeStaged}, nil
}

// read returns the staged text of path.
func (st *stage) read(path string) (string, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if f := st.files[path]; f != nil {
		return f.text, true
	}
	return "", false
}

// created lists the staged new files directly inside dir.
func (st *stage) created(dir string) []string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var names []string
	for _, f := range st.files {
		if f.create && filepath.Dir(f.path) == dir {
			names = append(names, filepath.Base(f.path))
		}
	}
	return names
}

// changed returns the staged files that differ from what they were, sorted.
func (st *stage) changed() []stagedFile {
	st.mu.Lock()
	defer st.mu.Unlock()
	var out []stagedFile
	for _, f := range st.files {
		if f.create || f.text != f.base {
			out = append(out, *f)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// discarded reports the staged changes of a run that did not reach its goal:
// nothing is proposed. nil when nothing was staged.
func (st *stage) discarded() *contract.ProposalReport {
	files := st.changed()
	if len(files) == 0 {
		return nil
	}
	rep := st.report(files)
	rep.SetOutcome(contract.OutcomeDiscarded)
	rep.Summary = fmt.Sprintf("Nothing was proposed: the run did not finish; %s discarded.", countFiles(len(files), "staged change"))
	return rep
}

func (st *stage) report(files []stagedFile) *contract.ProposalReport {
	rep := &contract.ProposalReport{}
	for _, f := range files {
		s := edits.DiffStat(f.base, f.text)
		rep.Files = append(rep.Files, contract.FileDecision{Name: f.name, Create: f.create, Added: s.Added, Deleted: s.Deleted})
	}
	return rep
}

// proposeAll sends the staged changes as one proposal, when the run calls
// complete_task with result, and reports what became of them; nil when
// nothing was staged. The stage is emptied either way.
func (st *stage) proposeAll(ctx context.Context, r *liveRun, result string) *contract.ProposalReport {
	files := st.changed()
	if len(files) == 0 {
		return nil
	}
	defer st.clear()
	rep := st.report(files)
	cs := make([]change, len(files))
	var total edits.Stat
	for i, f := range files {
		reason := strings.Join(f.reasons, "; ")
		if reason == "" {
			reason = firstLines(result, 1, 120)
		}
		cs[i] = change{path: f.path, name: f.name, target: f.target, base: f.base, mine: f.text, create: f.create, reason: reason}
		total.Added += rep.Files[i].Added
		total.Deleted += rep.Files[i].Deleted
	}
	r.report(ctx, fmt.Sprintf("Proposing changes to %s (%s)", countFiles(len(files), "file"), total), -1)
	ds, err := r.s.propose(ctx, r, cs)
	if err != nil {
		rep.SetOutcome(agent.OutcomeWithdrawn)
		rep.Message = err.Error()
		rep.Summary = "The proposal was withdrawn."
		return rep
	}
	for i, d := range ds {
		rep.Files[i].Outcome, rep.Files[i].Message, rep.Files[i].RejectedHunks = d.Outcome, d.Message, d.RejectedHunks
		if r.run != nil {
			c := cs[i]
			r.run.Record(agent.Change{Path: c.path, Name: c.name, Target: c.target, Old: c.base, New: c.mine, Create: c.create}, d)
		}
	}
	rep.Outcome, rep.Message = overall(ds)
	rep.Summary = summarize(rep)
	return rep
}

func (st *stage) clear() {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.files)
}

// maxRefusals is how often the user may turn a run's proposal down before
// the run ends anyway.
const maxRefusals = 2

// beforeComplete proposes the staged changes when the run calls
// complete_task. If the user turns them down, the model hears it and the run
// goes on, so that it can revise them (twice at most).
func (r *liveRun) beforeComplete(ctx context.Context, result string) (string, error) {
	rep := r.stage.proposeAll(ctx, r, result)
	if rep == nil {
		return "", nil
	}
	r.proposal = rep
	if err := ctx.Err(); err != nil {
		return "", err
	}
	switch rep.Outcome {
	case agent.OutcomeApplied, agent.OutcomeWithdrawn:
		return "", nil
	}
	r.refusals++
	if r.refusals >= maxRefusals {
		return "", nil
	}
	return rep.Summary + " No file changed and your staged changes are dropped. Revise them and stage them again, or call complete_task to finish without them.", nil
}

// overall is the proposal's outcome: applied when every file was, else the
// first other outcome.
func overall(ds []agent.Decision) (agent.Outcome, string) {
	for _, d := range ds {
		if d.Outcome != agent.OutcomeApplied {
			return d.Outcome, d.Message
		}
	}
	return agent.OutcomeApplied, ""
}

func summarize(rep *contract.ProposalReport) string {
	n := countFiles(len(rep.Files), "file")
	switch rep.Outcome {
	case agent.OutcomeApplied:
		for _, f := range rep.Files {
			if f.Message != "" {
				return fmt.Sprintf("Changes to %s applied, some in part.", n)
			}
		}
		return fmt.Sprintf("Changes to %s applied.", n)
	case agent.OutcomeRejected:
		msg := fmt.Sprintf("The changes to %s were rejected", n)
		if rep.Message != "" {
			msg += ": " + rep.Message
		}
		return msg + "."
	case agent.OutcomeConflict:
		return "Nothing was proposed: " + rep.Message + "."
	}
	return fmt.Sprintf("The changes to %s failed: %s.", n, rep.Message)
}

func countFiles(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// stagedFS is a confirm: run run's view of the files: its staged changes
// over the overlay.
type stagedFS struct {
	*runFS
	st *stage
}

func (f *stagedFS) ReadFile(path string) (string, error) {
	if text, ok := f.st.read(path); ok {
		return text, nil
	}
	return f.runFS.ReadFile(path)
}

// ReadDir lists dir with the run's staged new files in it.
func (f *stagedFS) ReadDir(path string) ([]fs.DirEntry, error) {
	entries, err := f.runFS.ReadDir(path)
	created := f.st.created(filepath.Clean(path))
	if err != nil && len(created) == 0 {
		return nil, err
	}
	for _, name := range created {
		if !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == name }) {
			entries = append(entries, stagedEntry(name))
		}
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	return entries, nil
}

// stagedEntry is a directory entry for a staged new file.
type stagedEntry string

func (e stagedEntry) Name() string             { return string(e) }
func (stagedEntry) IsDir() bool                { return false }
func (stagedEntry) Type() fs.FileMode          { return 0 }
func (stagedEntry) Info() (fs.FileInfo, error) { return nil, fs.ErrNotExist }
