package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks is how many symlinks one path may pass through, as Linux allows
// (40 is its limit per lookup; a chain of lookups may pass more).
const maxLinks = 255

// Links follows the resolved path the way the system does when it opens
// it, and returns every path on the way: path itself, then, for each
// symlink met, where it leads (its target with the rest of the path after
// it), and last the real path, every symlink evaluated. For a path that does
// not exist yet (a new file) the real path is its nearest existing
// ancestor's, with the rest appended. A path that meets no symlink gives
// [path].
//
// A dangling symlink, a loop, or a path the system cannot look up is an
// error: a write through a dangling link would create its target, wherever
// that is.
func (w *Workspace) Links(path string) ([]string, error) {
	rs := w.rootList()
	path = canonical(rs, path)
	hops, err := follow(rs, path)
	if err != nil {
		return nil, err
	}
	for i := range hops {
		hops[i] = canonical(rs, hops[i])
	}
	return hops, nil
}

// follow returns the hops of the clean absolute path (see Links).
func follow(rs []root, path string) ([]string, error) {
	lw := linkWalk{hops: []string{path}}
	real, err := lw.eval(rs, path, false, "")
	if err != nil {
		return nil, err
	}
	if real != lw.hops[len(lw.hops)-1] {
		lw.hops = append(lw.hops, real)
	}
	return lw.hops, nil
}

// A linkWalk follows the symlinks of one path, recording where each leads.
type linkWalk struct {
	hops []string
	n    int // symlinks followed
}

// eval returns the real path of the clean absolute path p. With whole set
// all of p must exist (p is a symlink's target); otherwise the part after
// the nearest existing ancestor is appended as it is. after is what follows
// p in the path being followed, for the hops.
func (lw *linkWalk) eval(rs []root, p string, whole bool, after string) (string, error) {
	const sep = string(filepath.Separator)
	// A root's symlinks are already evaluated: start from it.
	real, rest := filepath.VolumeName(p)+sep, p[len(filepath.VolumeName(p)):]
	if r, ok := rootFor(rs, p); ok {
		real, rest = r.path, p[len(r.path):]
	}
	for {
		rest = strings.TrimLeft(rest, sep)
		if rest == "" {
			return real, nil
		}
		var name string
		name, rest, _ = strings.Cut(rest, sep)
		switch name {
		case ".":
			continue
		case "..": // only a symlink's target has these; real has no links
			real = filepath.Dir(real)
			continue
		}
		next := filepath.Join(real, name)
		fi, err := os.Lstat(next)
		if err != nil {
			if !whole && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)) {
				return filepath.Join(next, rest), nil // a new file or folder
			}
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			real = next
			continue
		}
		if lw.n++; lw.n > maxLinks {
			return "", fmt.Errorf("%s: %w", next, syscall.ELOOP)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(real, target)
		}
		target = filepath.Clean(target)
		lw.hops = append(lw.hops, filepath.Join(target, rest, after))
		if real, err = lw.eval(rs, target, true, filepath.Join(rest, after)); err != nil {
			return "", fmt.Errorf("cannot follow %s: %w", next, err)
		}
	}
}

// Real returns where the clean absolute path really leads, every symlink
// evaluated (the last of Links). Writers call it just before they write,
// to check that the path still leads to the file that was checked.
func Real(path string) (string, error) {
	hops, err := follow(nil, filepath.Clean(path))
	if err != nil {
		return "", err
	}
	return hops[len(hops)-1], nil
}
