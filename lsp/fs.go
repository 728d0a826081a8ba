package lsp

import (
	"io/fs"
	"path/filepath"

	"github.com/agentls/agentls/workspace"
)

// runFS is the harness's view of the workspace for one run: the editor's
// buffers over the disk, paths taken from the run's folder (the workspace
// folder that holds the run's file).
type runFS struct {
	ws   *workspace.Workspace
	root string
}

func (f *runFS) Resolve(path string) (string, error) { return f.ws.Resolve(f.root, path) }

func (f *runFS) ReadFile(path string) (string, error) {
	file, err := f.ws.ReadFile(path)
	return file.Text, err
}

func (f *runFS) ReadDir(path string) ([]fs.DirEntry, error) { return f.ws.ReadDir(path) }

// Rel names a path relative to the run's folder, so that Resolve takes the
// name back; a path in another folder stays absolute.
func (f *runFS) Rel(path string) string {
	rel, err := filepath.Rel(f.root, path)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return path
	}
	return rel
}
