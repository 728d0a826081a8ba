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
	// target is where a symbolic link leads, its links evaluated; "" for a
	// file that is no link. Secrets are judged on it too: a link with an
	// innocent name may lead to a .env.
	target string
	size   int64     // only with walkOptions.stat
	mod    time.Time // only with walkOptions.stat
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
	res := walkResult{ignored: int(w.ignored.Load()), links: int(w.links.Load())}
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
	entries, err := w.readDir(path)
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
			if f, ok := w.file(child, e, ""); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		case typ&fs.ModeSymlink != 0:
			target, ok := w.link(child)
			if !ok {
				w.links.Add(1)
				continue
			}
			if f, ok := w.file(child, e, target); ok {
				d.items = append(d.items, walkItem{file: f})
			}
		}
		// Devices, pipes and sockets are never read: a pipe would block.
	}
}

// readDir lists the folder at path, with the Info of the files kept when
// the walk wants it and the FS can give it at once.
func (w *walker) readDir(path string) ([]fs.DirEntry, error) {
	if w.fast != nil {
		var stat func(string) bool
		if w.opt.stat {
			rel := relPath(w.start, path)
			stat = func(name string) bool {
				return w.opt.keep == nil || w.opt.keep(relJoin(rel, name))
			}
		}
		entries, err := w.fast.ReadDirStat(w.fs, path, stat)
		if !errors.Is(err, errors.ErrUnsupported) {
			return entries, err
		}
	}
	return w.fs.ReadDir(path)
}

// file makes the walkedFile of the entry e at path, if it is kept.
func (w *walker) file(path string, e fs.DirEntry, target string) (walkedFile, bool) {
	f := walkedFile{path: path, rel: relPath(w.start, path), target: target}
	if w.opt.keep != nil && !w.opt.keep(f.rel) {
		return f, false
	}
	if w.opt.stat {
		var info fs.FileInfo
		var err error
		if target != "" {
			info, err = os.Stat(target)
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

// link returns where the symbolic link at path leads, when that is a
// regular file inside the workspace.
func (w *walker) link(path string) (string, bool) {
	if _, err := w.fs.Resolve(path); err != nil {
		return "", false // leads out of the workspace, or nowhere
	}
	target, err := filepath.EvalSymlinks(path)
	if err != nil {
		return "", false
	}
	info, err := os.Stat(target)
	if err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	return target, true
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
