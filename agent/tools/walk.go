package tools

import (
	"cmp"
	"context"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
)

const (
	// maxWalkFiles bounds the files one search looks at.
	maxWalkFiles = 20000
	// walkers is how many folders a walk reads at once.
	walkers = 8
)

// A walkedFile is a file a walk found.
type walkedFile struct {
	path string // resolved absolute path
	rel  string // slash-separated, relative to the walk's start
	size int64
	mod  time.Time
}

// A walkResult is what a walk found.
type walkResult struct {
	files     []walkedFile // sorted by rel
	ignored   int          // entries the ignore rules left out
	truncated bool         // the walk stopped at its limit
}

// walk lists the files below the folder start, reading folders in parallel.
// It leaves out what ignore files and the defaults hide, and symbolic links
// that lead out of the workspace; it does not follow links to folders. It
// stops after limit files. Only the end of ctx makes it fail.
func walk(ctx context.Context, fsys agent.FS, start string, limit int) (walkResult, error) {
	ig, parts := ignoreAbove(fsys, start)
	w := &walker{ctx: ctx, fs: fsys, limit: limit, sem: make(chan struct{}, walkers)}
	w.wg.Add(1)
	go w.dir(start, parts, "", ig)
	w.wg.Wait()
	if err := ctx.Err(); err != nil {
		return walkResult{}, err
	}
	slices.SortFunc(w.res.files, func(a, b walkedFile) int { return cmp.Compare(a.rel, b.rel) })
	return w.res, nil
}

type walker struct {
	ctx   context.Context
	fs    agent.FS
	limit int
	sem   chan struct{} // bounds the folders read at once
	wg    sync.WaitGroup

	mu  sync.Mutex
	res walkResult
}

// dir reads the folder at dir (elements parts, rel from the start) and walks
// its subfolders in goroutines of their own.
func (w *walker) dir(dir string, parts []string, rel string, ig ignorer) {
	defer w.wg.Done()
	select {
	case w.sem <- struct{}{}:
	case <-w.ctx.Done():
		return
	}
	entries, err := w.fs.ReadDir(dir)
	if err == nil {
		ig = ig.with(w.fs, dir, parts)
	}
	<-w.sem
	for _, e := range entries {
		if w.ctx.Err() != nil || w.full() {
			return
		}
		name := e.Name()
		child, childParts, childRel := filepath.Join(dir, name), append(slices.Clip(parts), name), path.Join(rel, name)
		if ig.ignored(childParts, e.IsDir()) {
			w.count(func(r *walkResult) { r.ignored++ })
			continue
		}
		if e.Type()&fs.ModeSymlink != 0 {
			if _, err := w.fs.Resolve(child); err != nil {
				continue // leads out of the workspace
			}
		}
		if e.IsDir() {
			w.wg.Add(1)
			go w.dir(child, childParts, childRel, ig)
			continue
		}
		f := walkedFile{path: child, rel: childRel}
		if info, err := e.Info(); err == nil {
			f.size, f.mod = info.Size(), info.ModTime()
		}
		w.count(func(r *walkResult) {
			if len(r.files) < w.limit {
				r.files = append(r.files, f)
			} else {
				r.truncated = true
			}
		})
	}
}

func (w *walker) full() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.res.truncated
}

func (w *walker) count(f func(*walkResult)) {
	w.mu.Lock()
	defer w.mu.Unlock()
	f(&w.res)
}
