// Package lsp is agentls's face to the editor: the Language Server Protocol
// lifecycle, document sync into the workspace overlay, commands that start
// and cancel harness runs, progress, and the editor-side implementations of
// the harness's Proposer (workspace/applyEdit) and FS (the overlay).
//
// One [Server] serves one connection. Its LSP methods are split into files by
// method family (lifecycle.go, textsync.go, command.go); runs live in run.go.
package lsp
