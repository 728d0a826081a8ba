package lsp

import "github.com/agentls/agentls/workspace"

// runFS is the harness's view of the workspace for one run: the editor's
// buffers over the disk, paths taken from the run's folder (the workspace
// folder that holds the run's file). A file the editor answered it edited,
// but whose new text it has not reported yet, reads as the edit left it.
type runFS struct {
	*workspace.Folder
	applied *appliedEdits
}

func (f *runFS) ReadFile(path string) (string, error) {
	if text, ok := f.applied.text(path); ok {
		return text, nil
	}
	return f.Folder.ReadFile(path)
}
