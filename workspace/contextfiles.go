package workspace

import (
	"fmt"
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
// never twice on one chain. Problems are reported, never fatal.
func (w *Workspace) ContextFiles(userDir, activeFile string) ([]ContextFile, []error) {
	var files []ContextFile
	var errs []error
	total := 0
	add := func(path string, confine func(string) (string, error), display string) {
		b, err := w.readContext(path)
		if err != nil {
			return // absent: the common case
		}
		text := w.expandImports(string(b), filepath.Dir(path), confine, map[string]bool{path: true}, 0, &errs)
		if total+len(text) > maxContextBytes {
			errs = append(errs, fmt.Errorf("%s: context files pass %d KB; the rest are left out", display, maxContextBytes>>10))
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
		return files, errs
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
	return files, errs
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

func (w *Workspace) readContext(path string) ([]byte, error) {
	f, err := w.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return []byte(f.Text), nil
}

// expandImports replaces "@path" lines by the imported file's content.
func (w *Workspace) expandImports(text, dir string, confine func(string) (string, error), seen map[string]bool, depth int, errs *[]error) string {
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
			*errs = append(*errs, fmt.Errorf("import %s: %w", t, err))
			b.WriteString(line)
			continue
		case seen[path]:
			*errs = append(*errs, fmt.Errorf("import %s: cycle", t))
			continue
		case depth >= maxImportDepth:
			*errs = append(*errs, fmt.Errorf("import %s: more than %d levels deep", t, maxImportDepth))
			continue
		}
		content, err := w.readContext(path)
		if err != nil {
			*errs = append(*errs, fmt.Errorf("import %s: %w", t, err))
			b.WriteString(line)
			continue
		}
		seen[path] = true
		inner := w.expandImports(string(content), filepath.Dir(path), confine, seen, depth+1, errs)
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
