package tools

import (
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing/format/gitignore"

	"github.com/agentls/agentls/agent"
)

// ignoreFiles hide entries from listings and searches, with .gitignore's
// syntax: the patterns of a folder's files apply to it and below it, later
// and deeper patterns winning.
var ignoreFiles = []string{".gitignore", ".agentlsignore"}

// alwaysIgnored are never listed or searched: version control internals.
var alwaysIgnored = map[string]bool{".git": true, ".hg": true, ".svn": true}

// An ignorer holds the ignore patterns in force in a folder, in increasing
// priority. Paths are given as their elements relative to the top of the
// workspace folder.
type ignorer struct {
	patterns []gitignore.Pattern
}

// ignored reports whether the entry at parts is hidden.
func (ig ignorer) ignored(parts []string, isDir bool) bool {
	if len(parts) > 0 && alwaysIgnored[parts[len(parts)-1]] {
		return true
	}
	for i := len(ig.patterns) - 1; i >= 0; i-- {
		if m := ig.patterns[i].Match(parts, isDir); m != gitignore.NoMatch {
			return m == gitignore.Exclude
		}
	}
	return false
}

// with returns ig plus the patterns of the ignore files of folder dir, whose
// elements are parts and whose entries, when known, are entries: only the
// ignore files among them are read. ig itself is not changed.
func (ig ignorer) with(fsys agent.FS, dir string, parts []string, entries []fs.DirEntry) ignorer {
	var add []gitignore.Pattern
	for _, f := range ignoreFiles {
		if entries != nil && !slices.ContainsFunc(entries, func(e fs.DirEntry) bool { return e.Name() == f }) {
			continue
		}
		text, err := fsys.ReadFile(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		for line := range strings.Lines(text) {
			line = strings.TrimRight(line, "\r\n")
			if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
				continue
			}
			add = append(add, gitignore.ParsePattern(line, parts))
		}
	}
	if len(add) == 0 {
		return ig
	}
	return ignorer{patterns: append(slices.Clip(ig.patterns), add...)}
}

// ignoreAbove returns the ignore patterns that the folders above dir, up to
// the top of its workspace folder, set for dir, and dir's elements relative
// to that top. The top is the highest folder the FS still resolves.
func ignoreAbove(fsys agent.FS, dir string) (ignorer, []string) {
	chain := []string{dir}
	for d := dir; ; {
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		if _, err := fsys.Resolve(parent); err != nil {
			break
		}
		chain = append(chain, parent)
		d = parent
	}
	top := chain[len(chain)-1]
	var ig ignorer
	for i := len(chain) - 1; i > 0; i-- {
		ig = ig.with(fsys, chain[i], elements(top, chain[i]), nil)
	}
	return ig, elements(top, dir)
}

// elements returns the elements of path p relative to the folder top; nil
// for top itself.
func elements(top, p string) []string {
	rel, err := filepath.Rel(top, p)
	if err != nil || rel == "." {
		return nil
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}
