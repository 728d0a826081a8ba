package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ContextFileNames are the project context files, in the order they are
// read in each folder.
var ContextFileNames = []string{"AGENTS.md", "GEMINI.md"}

// Limits of @path imports in context files.
const (
	maxImportDepth  = 5
	maxContextBytes = 64 << 10 // all context files together
)

// A ContextFile is one project context file, its imports resolved.
type ContextFile struct {
	Path    string // as the user sees it: workspace-relative, or absolute for the user's own
	Content string
}

// ContextFiles returns the context files for a run: those in userDir (the
// user's own, for every project), then those from the root of the workspace
// folder holding activeFile (or the first folder) down to activeFile's
// folder. A line "@path" in a file is replaced by that file's content,
// resolved relative to the importing file and confined to the workspace (the
// user's files may import from userDir); imports nest at most five deep and
// never twice on one chain.
//
// A workspace's context file must itself lead to a file inside the
// workspace. guard, when not nil, is asked about every path a context file
// or an import leads through (see Links), named as the user sees it
// (workspace-relative, or absolute for the user's own): an error refuses
// the file, whose content is then sent nowhere. Problems are reported,
// never fatal.
func (w *Workspace) ContextFiles(userDir, activeFile string, guard func(name string) error) ([]ContextFile, []error) {
	cf := &contextReader{w: w, guard: guard}
	var files []ContextFile
	total := 0
	add := func(path string, confine func(string) (string, error), display string) {
		b, err := cf.read(path, confine)
		if errors.Is(err, fs.ErrNotExist) {
			return // absent: the common case
		}
		if err != nil {
			cf.errs = append(cf.errs, fmt.Errorf("%s: %w", display, err))
			return
		}
		text := cf.expand(b, filepath.Dir(path), confine, map[string]bool{path: true}, 0)
		if total+len(text) > maxContextBytes {
			cf.errs = append(cf.errs, fmt.Errorf("%s: context files pass %d KB; the rest are left out", display, maxContextBytes>>10))
			return
		}
		total += len(text)
		files = append(files, ContextFile{Path: display, Content: text})
	}
	if userDir != "" {
		confineUser := func(p string) (string, error) {
			p = filepath.Clean(p)
			if !within(p, filepath.Clean(userDir)) {
				return "", fmt.Errorf("%s is outside %s", p, userDir)
			}
			return p, nil
		}
		for _, name := range ContextFileNames {
			p := filepath.Join(userDir, name)
			add(p, confineUser, p)
		}
	}
	roots := w.Roots()
	if len(roots) == 0 {
		return files, cf.errs
	}
	root := roots[0]
	dir := root
	if activeFile != "" {
		activeFile = canonical(w.rootList(), activeFile)
		if r, ok := w.RootFor(activeFile); ok {
			root, dir = r, filepath.Dir(activeFile)
		}
	}
	confineWS := func(p string) (string, error) { return w.Resolve(root, p) }
	for _, d := range chain(root, dir) {
		for _, name := range ContextFileNames {
			p := filepath.Join(d, name)
			add(p, confineWS, w.Rel(p))
		}
	}
	return files, cf.errs
}

// A contextReader reads the context files of one run and their imports.
type contextReader struct {
	w     *Workspace
	guard func(name string) error
	errs  []error
}

// read reads the context file or import at path once confine accepts it
// and guard accepts every path it leads through.
func (cf *contextReader) read(path string, confine func(string) (string, error)) (string, error) {
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		if _, _, open := cf.w.Buffer(path); !open {
			return "", err
		}
	}
	if _, err := confine(path); err != nil {
		return "", err
	}
	return cf.readChecked(path)
}

// readChecked reads the confined path once guard accepts every path it
// leads through.
func (cf *contextReader) readChecked(path string) (string, error) {
	hops, err := cf.w.Links(path)
	if err != nil {
		return "", err
	}
	if cf.guard != nil {
		for _, h := range hops {
			if err := cf.guard(cf.w.Rel(h)); err != nil {
				return "", err
			}
		}
	}
	f, err := cf.w.ReadFile(path)
	return f.Text, err
}

// chain lists the folders from root down to dir (dir inside root).
func chain(root, dir string) []string {
	rel, err := filepath.Rel(root, dir)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return []string{root}
	}
	out := []string{root}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

// expand replaces "@path" lines by the imported file's content.
func (cf *contextReader) expand(text, dir string, confine func(string) (string, error), seen map[string]bool, depth int) string {
	lines := strings.SplitAfter(text, "\n")
	var b strings.Builder
	for _, line := range lines {
		t := strings.TrimSpace(line)
		if len(t) < 2 || t[0] != '@' || strings.ContainsAny(t, " \t") {
			b.WriteString(line)
			continue
		}
		target := t[1:]
		if !filepath.IsAbs(target) {
			target = filepath.Join(dir, target)
		}
		path, err := confine(target)
		switch {
		case err != nil:
			cf.errs = append(cf.errs, fmt.Errorf("import %s: %w", t, err))
			b.WriteString(line)
			continue
		case seen[path]:
			cf.errs = append(cf.errs, fmt.Errorf("import %s: cycle", t))
			continue
		case depth >= maxImportDepth:
			cf.errs = append(cf.errs, fmt.Errorf("import %s: more than %d levels deep", t, maxImportDepth))
			continue
		}
		content, err := cf.readChecked(path)
		if err != nil {
			cf.errs = append(cf.errs, fmt.Errorf("import %s: %w", t, err))
			b.WriteString(line)
			continue
		}
		seen[path] = true
		inner := cf.expand(content, filepath.Dir(path), confine, seen, depth+1)
		delete(seen, path)
		fmt.Fprintf(&b, "<!-- imported from %s -->\n%s", t[1:], inner)
		if !strings.HasSuffix(inner, "\n") {
			b.WriteString("\n")
		}
		b.WriteString("<!-- end of import -->\n")
	}
	return b.String()
}

// UserConfigDir is agentls's folder in the user's configuration directory
// ($XDG_CONFIG_HOME/agentls), or "" when there is none.
func UserConfigDir() string {
	d, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(d, "agentls")
}
