package lsp

import "github.com/agentls/agentls/workspace"

// runFS is the harness's view of the workspace for one run: the editor's
// buffers over the disk, paths taken from the run's folder (the workspace
// folder that holds the run's file).
type runFS = workspace.Folder
