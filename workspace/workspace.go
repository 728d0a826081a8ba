// Package workspace holds the editor's view of files: workspace folders, the
// overlay of open buffers, and path confinement.
//
// Vocabulary:
//   - a root is a workspace folder, stored absolute, clean and with its
//     symlinks evaluated; the first root is the default base for relative paths;
//   - a buffer is the editor's text of an open document (its overlay), newer
//     than the disk while unsaved, with the version the editor gave it;
//   - a canonical path is an absolute, clean path spelled under a root's
//     evaluated form; the overlay is keyed by canonical paths, so a document
//     opened through the folder's symlinked spelling (/tmp → /private/tmp on
//     macOS) and a tool path that names the same file meet on one buffer.
//
// Paths are OS paths throughout; URIs appear only in PathFromURI and
// URIFromPath, which the lsp package calls at its edge.
package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// A Workspace is the set of workspace folders plus the editor's open buffers.
// It is safe for concurrent use.
type Workspace struct {
	mu sync.RWMutex
	// Inv: roots is non-empty and never modified in place; SetRoots swaps in
	// a new slice, so a reader may keep using the slice it got under mu.
	roots   []root
	buffers map[string]*buffer // Inv: keys are canonical; *buffer is immutable, but for its cached flat text
}

// A root is one workspace folder.
type root struct {
	path  string // absolute, clean, symlinks evaluated
	given string // absolute and clean, as the client named it (may equal path)
	name  string // base name of given; prefixes paths in Rel with several roots
}

// New returns a workspace with the given folders as roots. Relative roots are
// taken from the current directory. Folders that do not exist (or are not
// directories) are left out; New fails only if none is left.
func New(roots ...string) (*Workspace, error) {
	rs, err := makeRoots(roots)
	if err != nil {
		return nil, err
	}
	return &Workspace{roots: rs, buffers: make(map[string]*buffer)}, nil
}

// Roots returns the workspace folders, absolute, clean and with symlinks
// evaluated, in the order given. The first is the default base for relative
// paths.
func (w *Workspace) Roots() []string {
	rs := w.rootList()
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.path
	}
	return out
}

// SetRoots replaces the workspace folders (didChangeWorkspaceFolders). On error
// the roots are unchanged. Open buffers are kept: a buffer outside every root
// is still the editor's text, and closing it is the editor's business.
func (w *Workspace) SetRoots(roots ...string) error {
	rs, err := makeRoots(roots)
	if err != nil {
		return err
	}
	w.mu.Lock()
	w.roots = rs
	w.mu.Unlock()
	return nil
}

// RootFor returns the root that contains path: the longest one when roots are
// nested. path should be absolute.
func (w *Workspace) RootFor(path string) (string, bool) {
	rs := w.rootList()
	r, ok := rootFor(rs, canonical(rs, path))
	return r.path, ok
}

// ClientPath returns path spelled the way the client named its workspace
// folder: the inverse of the canonicalisation that Open, Buffer and Resolve
// apply. Use it to build URIs the editor will recognise as its own documents.
// A path under no root is returned clean and otherwise unchanged.
func (w *Workspace) ClientPath(path string) string {
	rs := w.rootList()
	path = filepath.Clean(path)
	r, ok := rootFor(rs, path)
	if !ok || r.given == r.path {
		return path
	}
	return r.given + path[len(r.path):]
}

// Canonical returns path spelled the way Open, Buffer and Resolve keep it:
// a prefix that names a root the way the client gave it is rewritten to the
// root's evaluated form. The inverse of ClientPath.
func (w *Workspace) Canonical(path string) string {
	return canonical(w.rootList(), path)
}

func (w *Workspace) rootList() []root {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.roots
}

// canonical returns path clean, with a prefix that names a root the way the
// client gave it rewritten to the root's evaluated form. It makes no system
// calls; symlinks below a root are left as they are.
func canonical(rs []root, path string) string {
	path = filepath.Clean(path)
	var best *root
	for i := range rs {
		r := &rs[i]
		if r.given != r.path && within(path, r.given) && (best == nil || len(r.given) > len(best.given)) {
			best = r
		}
	}
	if best == nil {
		return path
	}
	return best.path + path[len(best.given):]
}

// rootFor returns the longest root whose evaluated path contains path.
func rootFor(rs []root, path string) (root, bool) {
	var best root
	found := false
	for _, r := range rs {
		if within(path, r.path) && (!found || len(r.path) > len(best.path)) {
			best, found = r, true
		}
	}
	return best, found
}

// within reports whether the clean path is dir or lies below it.
func within(path, dir string) bool {
	if !strings.HasPrefix(path, dir) {
		return false
	}
	if len(path) == len(dir) {
		return true
	}
	// dir ends in a separator only when it is a volume root such as "/".
	return dir[len(dir)-1] == filepath.Separator || path[len(dir)] == filepath.Separator
}

func makeRoots(paths []string) ([]root, error) {
	var (
		rs   []root
		errs []error
	)
	for _, p := range paths {
		r, err := makeRoot(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if !containsRoot(rs, r.path) {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		if len(errs) == 0 {
			return nil, errors.New("no workspace folder given")
		}
		return nil, fmt.Errorf("no usable workspace folder: %w", errors.Join(errs...))
	}
	return rs, nil
}

func makeRoot(p string) (root, error) {
	if p == "" || strings.IndexByte(p, 0) >= 0 {
		return root{}, fmt.Errorf("workspace folder %q: %w", p, ErrInvalidPath)
	}
	given, err := filepath.Abs(p)
	if err != nil {
		return root{}, fmt.Errorf("workspace folder %q: %w", p, err)
	}
	real, err := filepath.EvalSymlinks(given)
	if err != nil {
		return root{}, fmt.Errorf("workspace folder %q: %w", p, err)
	}
	fi, err := os.Stat(real)
	if err != nil {
		return root{}, fmt.Errorf("workspace folder %q: %w", p, err)
	}
	if !fi.IsDir() {
		return root{}, fmt.Errorf("workspace folder %q is not a directory", p)
	}
	return root{path: real, given: given, name: filepath.Base(given)}, nil
}

func containsRoot(rs []root, path string) bool {
	for _, r := range rs {
		if r.path == path {
			return true
		}
	}
	return false
}
