package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/agentls/agentls/agent"
)

// walkers is how many folders a walk reads at once: more than the cores,
// since reading a folder that is not cached waits on the disk.
const walkers = 8

// A walkedFile is a file a walk found.
type walkedFile struct {
	rel string // slash-separated, relative to the walk's start
	// links are the paths that opening a symbolic link passes through
	// (agent.FS Links), the real file last; nil for a file that is no
	// link. Secrets are judged on them too: a link with an innocent name
	// may lead to a .env.
	links []string
	mod   int64 // modification time in Unix nanoseconds; only with walkOptions.stat
}

// walkOptions say what a walk keeps.
type walkOptions struct {
	// keep reports whether to return the file at rel; nil keeps every file.
	keep func(rel string) bool
	// stat fills in the modification time of the files kept.
	stat bool
}

// A walkResult is what a walk found.
type walkResult struct {
	// files are in path order: the entries of each folder by name, a
	// folder's files right where its name sorts. Inv: complete and the same
	// for the same tree, whatever order the folders were read in.
	files   []walkedFile
	ignored int // entries the ignore rules left out
	links   int // symbolic links not followed: to folders, out of the workspace, or broken
	// start and real are where the walk started and that folder's real
	// path. A walk follows no link below its start, so a file that is no
	// link is at real plus its rel.
	start, real string
}

// path is f's path as the workspace names it (links kept).
func (r *walkResult) path(f *walkedFile) string {
	return joinPath(r.start, filepath.FromSlash(f.rel))
}

// hops are the paths that opening f, at path, passes through (agent.FS
// Links): its own, and the real one when it differs.
func (r *walkResult) hops(f *walkedFile, path string) []string {
	switch {
	case f.links != nil:
		return f.links
	case r.real == r.start:
		return []string{path}
	}
	return []string{path, joinPath(r.real, filepath.FromSlash(f.rel))}
}

// walk lists every file below the folder start, which must be resolved. It
// reads folders in parallel and merges what they hold in path order. It
// leaves out what ignore files and the defaults hide, and every symbolic
// link that leads to a folder, out of the workspace or nowhere: only regular
// files, and links to regular files inside the workspace, are walked. Only
// the end of ctx makes it fail.
func walk(ctx context.Context, fsys agent.FS, start string, opt walkOptions) (walkResult, error) {
	ig, parts := ignoreAbove(fsys, start)
	w := &walker{ctx: ctx, fs: fsys, opt: opt, start: start}
	w.fast, _ = fsys.(statLister)
	w.cond.L = &w.mu
	root := &walkDir{}
	w.jobs = []walkJob{{d: root, path: start, parts: parts, ig: ig}}
	w.pending = 1
	stop := context.AfterFunc(ctx, func() {
		w.mu.Lock()
		w.stopped = true
		w.mu.Unlock()
		w.cond.Broadcast()
	})
	var wg sync.WaitGroup
	for range walkers {
		wg.Go(w.work)
	}
	wg.Wait()
	stop()
	if err := ctx.Err(); err != nil {
		return walkResult{}, err
	}
	res := walkResult{ignored: int(w.ignored.Load()), links: int(w.links.Load()), start: start, real: start}
	if hops, err := fsys.Links(start); err == nil {
		res.real = hops[len(hops)-1]
	}
	res.files = make([]walkedFile, 0, w.kept.Load())
	root.flatten(&res.files)
	return res, nil
}

// A walkDir is what a walk found in one folder, in name order.
type walkDir struct {
	items []walkItem
}

// A walkItem is a file or a folder of a walkDir.
type walkItem struct {
	file walkedFile
	sub  *walkDir // a folder when not nil
}

func (d *walkDir) flatten(out *[]walkedFile) {
	for i := range d.items {
		if it := &d.items[i]; it.sub != nil {
			it.sub.flatten(out)
		} else {
			*out = append(*out, it.file)
		}
	}
}

// A statLister lists a folder, sorted by name, and gives the Info of its
// entries at less cost than ReadDir and an Lstat of each.
// workspace.Folder implements it.
type statLister interface {
	// ReadDirStat lists the resolved directory path as view's ReadDir
	// does, sorted by name; until done, an entry's Info is cheap. view is
	// the agent.FS the caller reads through; one that is not the receiver
	// gets an error wrapping errors.ErrUnsupported (see bufferedFS).
	ReadDirStat(view any, path string) (entries []fs.DirEntry, done func(), err error)
}

// A walkJob is a folder to read into d: its path, its path relative to the
// walk's start, its elements from the workspace folder's top (for the
// ignore rules), and the ignore rules above it.
type walkJob struct {
	d         *walkDir
	path, rel string
	parts     []string
	ig        ignorer
}

// A walker reads folders with a fixed set of goroutines, each taking the
// next folder to read from a stack that the folders read push their
// subfolders on.
type walker struct {
	ctx   context.Context
	fs    agent.FS
	fast  statLister // nil: fs.ReadDir
	opt   walkOptions
	start string

	mu      sync.Mutex
	cond    sync.Cond // signalled when jobs grow, pending ends or stopped
	jobs    []walkJob // folders to read, the next last
	pending int       // folders pushed and not yet read
	stopped bool      // ctx ended

	ignored, links, kept atomic.Int64
}

// work reads folders until none are left, or the walk is stopped.
func (w *walker) work() {
	var subs []walkJob
	w.mu.Lock()
	for {
		for len(w.jobs) == 0 && w.pending > 0 && !w.stopped {
			w.cond.Wait()
		}
		if w.pending == 0 || w.stopped {
			w.mu.Unlock()
			return
		}
		job := w.jobs[len(w.jobs)-1]
		w.jobs = w.jobs[:len(w.jobs)-1]
		w.mu.Unlock()

		subs = w.dir(job, subs[:0])

		w.mu.Lock()
		// Pushed last first: the next folder read is the first by name,
		// so that reading goes depth first, as the files are laid out.
		for i := len(subs) - 1; i >= 0; i-- {
			w.jobs = append(w.jobs, subs[i])
		}
		clear(subs) // no job kept alive from here
		w.pending += len(subs) - 1
		switch {
		case w.pending == 0:
			w.cond.Broadcast()
		case len(subs) > 1:
			w.cond.Broadcast()
		case len(subs) == 1:
			w.cond.Signal()
		}
	}
}

// dir reads the folder of job into job.d and appends its subfolders to
// subs.
func (w *walker) dir(job walkJob, subs []walkJob) []walkJob {
	if w.ctx.Err() != nil {
		return subs
	}
	entries, done, err := w.readDir(job.path)
	if err != nil {
		return subs
	}
	defer done()
	ig := job.ig.with(w.fs, job.path, job.parts, entries)
	// scratch holds the elements of each entry in turn, for the ignore
	// rules; a folder walked gets a copy of its own.
	scratch := append(job.parts[:len(job.parts):len(job.parts)], "")
	d := job.d
	d.items = make([]walkItem, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		scratch[len(scratch)-1] = name
		typ := e.Type()
		if ig.ignored(scratch, typ.IsDir()) {
			w.ignored.Add(1)
			continue
		}
		switch {
		case typ.IsDir():
			sub := &walkDir{}
			d.items = append(d.items, walkItem{sub: sub})
			subs = append(subs, walkJob{d: sub, path: joinPath(job.path, name), rel: relJoin(job.rel, name), parts: slices.Clone(scratch), ig: ig})
		case typ.IsRegular():
			if f, ok := w.file(relJoin(job.rel, name), e, nil); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		case typ&fs.ModeSymlink != 0:
			links, ok := w.link(joinPath(job.path, name))
			if !ok {
				w.links.Add(1)
				continue
			}
			if f, ok := w.file(relJoin(job.rel, name), e, links); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		}
		// Devices, pipes and sockets are never read: a pipe would block.
	}
	return subs
}

// readDir lists the folder at path, sorted by name; done ends the cheap
// Infos of the entries.
func (w *walker) readDir(path string) (entries []fs.DirEntry, done func(), err error) {
	if w.fast != nil {
		entries, done, err := w.fast.ReadDirStat(w.fs, path)
		if !errors.Is(err, errors.ErrUnsupported) {
			return entries, done, err
		}
	}
	entries, err = w.fs.ReadDir(path)
	if err == nil && !slices.IsSortedFunc(entries, byName) {
		slices.SortFunc(entries, byName)
	}
	return entries, func() {}, err
}

// file makes the walkedFile of the entry e at rel, if it is kept; links
// are those of a symbolic link.
func (w *walker) file(rel string, e fs.DirEntry, links []string) (walkedFile, bool) {
	f := walkedFile{rel: rel, links: links}
	if w.opt.keep != nil && !w.opt.keep(rel) {
		return f, false
	}
	if w.opt.stat {
		var info fs.FileInfo
		var err error
		if links != nil {
			info, err = os.Stat(links[len(links)-1])
		} else {
			info, err = e.Info()
		}
		if err == nil { // else a file gone since, or staged and not on disk yet
			f.mod = info.ModTime().UnixNano()
		}
	}
	w.kept.Add(1)
	return f, true
}

// link returns the paths that opening the symbolic link at path passes
// through, when it leads to a regular file inside the workspace.
func (w *walker) link(path string) ([]string, bool) {
	if _, err := w.fs.Resolve(path); err != nil {
		return nil, false // leads out of the workspace, or nowhere
	}
	links, err := w.fs.Links(path)
	if err != nil || len(links) < 2 {
		return nil, false
	}
	info, err := os.Stat(links[len(links)-1])
	if err != nil || !info.Mode().IsRegular() {
		return nil, false
	}
	return links, true
}

// joinPath is filepath.Join for a clean dir and a name, without Join's
// cleaning.
func joinPath(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

// relJoin is path.Join for a clean slash path and a name.
func relJoin(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }
