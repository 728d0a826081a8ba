package lsp

import (
	"io/fs"

	"github.com/agentls/agentls/workspace"
)

// runFS is the harness's view of the workspace for one run: the editor's
// buffers over the disk, paths resolved against the run's folder.
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

func (f *runFS) Rel(path string) string {
	if r := f.ws.Rel(path); r != "" {
		return r
	}
	return "."
}
