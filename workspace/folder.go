package workspace

import (
	"io/fs"
	"path/filepath"
)

// A Folder is the workspace seen from one of its folders, as a run works in
// it: paths resolve against the folder and are named relative to it, and
// files read as the editor has them. It is the harness's file view
// (agent.FS) for the server and the terminal alike.
type Folder struct {
	w    *Workspace
	root string
}

// Folder returns the view from root, one of the workspace's folders.
func (w *Workspace) Folder(root string) *Folder { return &Folder{w: w, root: root} }

// Root is the folder's path.
func (f *Folder) Root() string { return f.root }

// Resolve resolves a path against the folder, confined to the workspace.
func (f *Folder) Resolve(path string) (string, error) { return f.w.Resolve(f.root, path) }

// ReadFile reads a resolved path, the editor's buffer first.
func (f *Folder) ReadFile(path string) (string, error) {
	file, err := f.w.ReadFile(path)
	return file.Text, err
}

// ReadDir lists a resolved directory on disk.
func (f *Folder) ReadDir(path string) ([]fs.DirEntry, error) { return f.w.ReadDir(path) }

// Rel names a path relative to the folder ("." for the folder itself), so
// that Resolve takes the name back; a path elsewhere stays absolute.
func (f *Folder) Rel(path string) string {
	rel, err := filepath.Rel(f.root, path)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return path
	}
	return rel
}

// Links lists the paths that opening a resolved path passes through, the
// real one last (see Workspace.Links).
func (f *Folder) Links(path string) ([]string, error) { return f.w.Links(path) }
