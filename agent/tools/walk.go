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
	"time"

	"github.com/agentls/agentls/agent"
)

// walkers is how many folders a walk reads at once: more than the cores,
// since reading a folder that is not cached waits on the disk.
const walkers = 8

// A walkedFile is a file a walk found.
type walkedFile struct {
	path string // absolute, as the workspace names it (links kept)
	rel  string // slash-separated, relative to the walk's start
	// links are the paths that opening a symbolic link passes through
	// (agent.FS Links), the real file last; nil for a file that is no
	// link. Secrets are judged on them too: a link with an innocent name
	// may lead to a .env.
	links []string
	size  int64     // only with walkOptions.stat
	mod   time.Time // only with walkOptions.stat
}

// walkOptions say what a walk keeps.
type walkOptions struct {
	// keep reports whether to return the file at rel; nil keeps every file.
	keep func(rel string) bool
	// stat fills in the size and modification time of the files kept.
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

// hops are the paths that opening f passes through (agent.FS Links): its
// own, and the real one when it differs.
func (r *walkResult) hops(f *walkedFile) []string {
	switch {
	case f.links != nil:
		return f.links
	case r.real == r.start:
		return []string{f.path}
	}
	return []string{f.path, joinPath(r.real, filepath.FromSlash(f.rel))}
}

// walk lists every file below the folder start, which must be resolved. It
// reads folders in parallel and merges what they hold in path order. It
// leaves out what ignore files and the defaults hide, and every symbolic
// link that leads to a folder, out of the workspace or nowhere: only regular
// files, and links to regular files inside the workspace, are walked. Only
// the end of ctx makes it fail.
func walk(ctx context.Context, fsys agent.FS, start string, opt walkOptions) (walkResult, error) {
	ig, parts := ignoreAbove(fsys, start)
	w := &walker{ctx: ctx, fs: fsys, opt: opt, sem: make(chan struct{}, walkers), start: start}
	w.fast, _ = fsys.(statLister)
	root := &walkDir{}
	w.wg.Add(1)
	go w.dir(root, start, parts, ig)
	w.wg.Wait()
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

// A statLister lists a folder and the metadata of the files a walk keeps
// at once, at less cost than ReadDir and an Info per file.
// workspace.Folder implements it.
type statLister interface {
	// ReadDirStat lists the resolved directory path as view's ReadDir
	// does, each regular file that stat chooses by name with its Info
	// filled in. view is the agent.FS the caller reads through; one that is
	// not the receiver gets an error wrapping errors.ErrUnsupported (see
	// bufferedFS).
	ReadDirStat(view any, path string, stat func(name string) bool) ([]fs.DirEntry, error)
}

type walker struct {
	ctx   context.Context
	fs    agent.FS
	fast  statLister // nil: fs.ReadDir
	opt   walkOptions
	start string
	sem   chan struct{} // bounds the folders read at once
	wg    sync.WaitGroup

	ignored, links, kept atomic.Int64
}

// dir reads the folder at path (elements parts from the workspace folder's
// top) into d, and walks its subfolders in goroutines of their own.
func (w *walker) dir(d *walkDir, path string, parts []string, ig ignorer) {
	defer w.wg.Done()
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return
	}
	entries, kept, err := w.readDir(path)
	if err == nil {
		if !slices.IsSortedFunc(entries, byName) {
			slices.SortFunc(entries, byName)
		}
		ig = ig.with(w.fs, path, parts, entries)
	}
	<-w.sem
	if err != nil || w.ctx.Err() != nil {
		return
	}
	// scratch holds the elements of each entry in turn, for the ignore
	// rules; a folder walked gets a copy of its own.
	scratch := append(parts[:len(parts):len(parts)], "")
	d.items = make([]walkItem, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		scratch[len(scratch)-1] = name
		typ := e.Type()
		if ig.ignored(scratch, typ.IsDir()) {
			w.ignored.Add(1)
			continue
		}
		child := joinPath(path, name)
		switch {
		case typ.IsDir():
			sub := &walkDir{}
			d.items = append(d.items, walkItem{sub: sub})
			w.wg.Add(1)
			go w.dir(sub, child, slices.Clone(scratch), ig)
		case typ.IsRegular():
			if kept != nil && !kept[name] {
				continue // the lister asked keep already
			}
			if f, ok := w.file(child, e, nil, kept != nil); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		case typ&fs.ModeSymlink != 0:
			links, ok := w.link(child)
			if !ok {
				w.links.Add(1)
				continue
			}
			if f, ok := w.file(child, e, links, false); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		}
		// Devices, pipes and sockets are never read: a pipe would block.
	}
}

// readDir lists the folder at path, with the Info of the files kept when
// the walk wants it and the FS can give it at once. kept, when not nil,
// holds the names of the regular files keep chose on the way: the others
// need not be asked again.
func (w *walker) readDir(path string) (entries []fs.DirEntry, kept map[string]bool, err error) {
	if w.fast != nil {
		var stat func(string) bool
		if w.opt.stat {
			rel := relPath(w.start, path)
			if w.opt.keep != nil {
				kept = make(map[string]bool)
			}
			stat = func(name string) bool {
				if kept == nil {
					return true
				}
				ok := w.opt.keep(relJoin(rel, name))
				if ok {
					kept[name] = true
				}
				return ok
			}
		}
		entries, err := w.fast.ReadDirStat(w.fs, path, stat)
		if !errors.Is(err, errors.ErrUnsupported) {
			return entries, kept, err
		}
	}
	entries, err = w.fs.ReadDir(path)
	return entries, nil, err
}

// file makes the walkedFile of the entry e at path, if it is kept (known:
// keep chose it already); links are those of a symbolic link.
func (w *walker) file(path string, e fs.DirEntry, links []string, known bool) (walkedFile, bool) {
	f := walkedFile{path: path, rel: relPath(w.start, path), links: links}
	if !known && w.opt.keep != nil && !w.opt.keep(f.rel) {
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
			f.size, f.mod = info.Size(), info.ModTime()
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

// relPath is path relative to the folder start it lies in, slash-separated.
func relPath(start, path string) string {
	rel := strings.TrimPrefix(path[len(start):], string(filepath.Separator))
	return filepath.ToSlash(rel)
}

func byName(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) }
