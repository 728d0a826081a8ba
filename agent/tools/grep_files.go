package tools

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"
)

// A bufferedFS reads files into a buffer its caller reuses. A search reads
// thousands of files, and a new string for each (agent.FS.ReadFile) costs
// more than the reading. workspace.Folder implements it.
type bufferedFS interface {
	// AppendFile appends the text of the resolved path, as view's ReadFile
	// reads it, to buf, unless it is longer than max bytes; it returns the
	// text's length either way. view is the agent.FS the caller reads
	// through; a view that is not the receiver itself (one that embeds it
	// and may read differently) gets an error wrapping
	// errors.ErrUnsupported.
	AppendFile(view any, buf []byte, path string, max int64) ([]byte, int64, error)
}

// A grepHit is the matches of one file.
type grepHit struct {
	name    string   // the path as the user sees it
	lines   []string // "name:line: text", the first ones shown
	matches int      // all matching lines of the file
}

// grepSkips counts the files a search left out, and why.
type grepSkips struct {
	binary, secret, large int
}

// A grepResult is what a search found.
type grepResult struct {
	hits                  []*grepHit // the files that match, in path order
	matches, files, shown int
	skips                 grepSkips
}

// grep searches the files a walk found in parallel, each worker with its
// own buffers, and returns their hits in the files' order. Only the files
// at the head of the order keep lines to show: once the files before one
// hold maxMatches lines, later files are only counted.
func (st *state) grep(ctx context.Context, m *lineMatcher, walked walkResult) grepResult {
	files := walked.files
	hits := make([]*grepHit, len(files))
	g := &grepper{st: st, m: m, walk: &walked, files: files, hits: hits, done: make([]bool, len(files)), cut: len(files)}
	var wg sync.WaitGroup
	next := make(chan int, 64)
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() { g.work(next) })
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()

	res := grepResult{skips: g.skips}
	for _, h := range hits {
		if h == nil {
			continue
		}
		h.lines = h.lines[:min(len(h.lines), maxMatches-res.shown)]
		res.hits = append(res.hits, h)
		res.files++
		res.matches += h.matches
		res.shown += len(h.lines)
	}
	return res
}

type grepper struct {
	st    *state
	m     *lineMatcher
	walk  *walkResult
	files []walkedFile
	hits  []*grepHit // by file; nil for a file without matches

	mu    sync.Mutex
	skips grepSkips
	done  []bool // the files searched
	// prefix is how many files at the head are all searched, and lines
	// how many lines they show; cut is the first file that shows none.
	prefix, lines, cut int
}

func (g *grepper) work(next <-chan int) {
	var buf, fold []byte
	bfs, _ := g.st.env.FS.(bufferedFS)
	for i := range next {
		f := &g.files[i]
		var h *grepHit
		buf, fold, h = g.file(f, bfs, buf[:0], fold, g.cutAt() > i)
		g.finish(i, h)
	}
}

// file searches one file and returns its hit, nil when it has no match.
// With show clear only its matches are counted.
func (g *grepper) file(f *walkedFile, bfs bufferedFS, buf, fold []byte, show bool) ([]byte, []byte, *grepHit) {
	path := g.walk.path(f)
	if g.st.secretHops("grep_search", g.walk.hops(f, path)) {
		g.skip(&g.skips.secret)
		return buf, fold, nil
	}
	var size int64
	var err error
	if bfs != nil {
		buf, size, err = bfs.AppendFile(g.st.env.FS, buf, path, maxGrepFileSize)
	}
	if bfs == nil || errors.Is(err, errors.ErrUnsupported) {
		var text string
		text, err = g.st.env.FS.ReadFile(path)
		size = int64(len(text))
		if size <= maxGrepFileSize {
			buf = append(buf, text...)
		}
	}
	switch {
	case err != nil:
		return buf, fold, nil // gone since the walk
	case size > maxGrepFileSize:
		g.skip(&g.skips.large)
		return buf, fold, nil
	}
	if len(buf) > 0 {
		// Inv: the string does not outlive buf's contents.
		if _, bin := binaryKind(unsafe.String(&buf[0], len(buf))); bin {
			g.skip(&g.skips.binary)
			return buf, fold, nil
		}
	}
	var h *grepHit
	fold = g.m.scan(buf, fold, show, func(l found) bool {
		if h == nil {
			h = &grepHit{name: g.st.env.FS.Rel(path)}
		}
		h.matches++
		if show && len(h.lines) < maxMatchesPerFile {
			text, more := unsafe.String(unsafe.SliceData(l.text), len(l.text)), ""
			if len(text) > maxMatchLine {
				text, more = truncateUTF8(text, maxMatchLine), " […]"
			}
			h.lines = append(h.lines, fmt.Sprintf("%s:%d: %s%s", h.name, l.n, text, more)) // copies text out of buf
		}
		return true
	})
	return buf, fold, h
}

func (g *grepper) skip(n *int) {
	g.mu.Lock()
	*n++
	g.mu.Unlock()
}

func (g *grepper) cutAt() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cut
}

// finish records the hit of file i and moves the cut: the files after those
// at the head that show maxMatches lines need not keep any, which bounds
// the memory of a search that matches everywhere.
func (g *grepper) finish(i int, h *grepHit) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if i >= g.cut && h != nil {
		h.lines = nil // searched before the cut was known
	}
	g.hits[i], g.done[i] = h, true
	for g.prefix < g.cut && g.done[g.prefix] {
		if h := g.hits[g.prefix]; h != nil {
			g.lines += len(h.lines)
		}
		g.prefix++
		if g.lines >= maxMatches {
			g.cut = g.prefix
		}
	}
}
