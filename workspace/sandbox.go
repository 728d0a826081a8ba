package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

var (
	// ErrOutside reports a path that leads out of every workspace folder.
	ErrOutside = errors.New("path is outside the workspace")
	// ErrInvalidPath reports a path that names no file (empty root, NUL byte).
	ErrInvalidPath = errors.New("invalid path")
)

// Resolve turns a path a tool was given into a clean absolute path inside a
// root. A relative p is taken from base, or, when base is "", from the first
// root; with several roots, a relative p whose first element is a root's name
// (as Rel writes it) is taken from that root. An absolute p is used as it is.
//
// Resolve refuses, with an error wrapping ErrOutside that names p and the
// allowed roots: a path that ".." leads out of every root; an absolute path
// outside every root; a path whose existing part leads, through a symlink to
// a file or folder, out of every root (every hop of a chain of links is
// followed: see Links); a dangling symlink or a loop; a path starting with
// "~" (no home expansion is done). A NUL byte gives ErrInvalidPath. A path
// that does not exist yet is fine as long as its nearest existing ancestor
// is inside, so new files can be named.
//
// The path returned is lexical: symlinks inside the workspace are kept, as
// the editor names files that way too; Links tells where it really leads.
// The check is against a hostile repository's links and the model's paths,
// not a race with another process that swaps a folder for a symlink
// afterwards: writers check again just before they write.
func (w *Workspace) Resolve(base, p string) (string, error) {
	rs := w.rootList()
	if strings.IndexByte(p, 0) >= 0 || strings.IndexByte(base, 0) >= 0 {
		return "", fmt.Errorf("%w: %q contains a NUL byte", ErrInvalidPath, p)
	}
	if strings.HasPrefix(p, "~") {
		return "", fmt.Errorf("%w: %q: \"~\" is not expanded; use a path relative to the workspace or an absolute path inside %s",
			ErrOutside, p, rootNames(rs))
	}

	var abs string
	switch {
	case filepath.IsAbs(p):
		abs = p
	case base == "":
		dir, rel := baseRoot(rs, p)
		abs = filepath.Join(dir, rel)
	case filepath.IsAbs(base):
		abs = filepath.Join(base, p)
	default:
		abs = filepath.Join(rs[0].path, base, p)
	}
	abs = canonical(rs, abs)
	if _, ok := rootFor(rs, abs); !ok {
		return "", outside(rs, p, abs)
	}

	hops, err := follow(rs, abs)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %w; allowed: %s", ErrOutside, p, err, rootNames(rs))
	}
	if real := hops[len(hops)-1]; !inRoots(rs, real) {
		return "", outside(rs, p, real)
	}
	return abs, nil
}

// Rel returns path for display: relative to its root ("main.go", "sub/x.go",
// "." for the root itself), prefixed with the root's name when there are
// several roots ("api/main.go"). Resolve accepts what Rel returns. A path
// outside every root is returned unchanged.
func (w *Workspace) Rel(path string) string {
	rs := w.rootList()
	c := canonical(rs, path)
	r, ok := rootFor(rs, c)
	if !ok {
		return path
	}
	rel, err := filepath.Rel(r.path, c)
	if err != nil {
		return path
	}
	if len(rs) == 1 {
		return rel
	}
	if rel == "." {
		return r.name
	}
	return filepath.Join(r.name, rel)
}

// baseRoot splits a relative tool path with no base into the root it starts
// from and the rest: with several roots, a first element that names a root
// picks that root; otherwise p is relative to the first root.
// Inv: with several roots Rel always prefixes the root's name, so this is
// the inverse of Rel. Of two roots with the same name the first wins.
func baseRoot(rs []root, p string) (dir, rel string) {
	if len(rs) > 1 {
		first, rest, _ := strings.Cut(filepath.Clean(p), string(filepath.Separator))
		for _, r := range rs {
			if r.name == first {
				return r.path, rest
			}
		}
	}
	return rs[0].path, p
}

func inRoots(rs []root, path string) bool {
	_, ok := rootFor(rs, path)
	return ok
}

func outside(rs []root, p, where string) error {
	if where == p {
		return fmt.Errorf("%w: %q; allowed: %s", ErrOutside, p, rootNames(rs))
	}
	return fmt.Errorf("%w: %q leads to %s; allowed: %s", ErrOutside, p, where, rootNames(rs))
}

func rootNames(rs []root) string {
	names := make([]string, len(rs))
	for i, r := range rs {
		names[i] = r.path
	}
	return strings.Join(names, ", ")
}
