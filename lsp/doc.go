// Package lsp is agentls's face to the editor: the Language Server Protocol
// lifecycle, document sync into the workspace overlay, code actions, the
// commands that start and cancel harness runs, progress, and the editor-side
// implementations of the harness's Proposer (workspace/applyEdit), Approver
// (window/showMessageRequest) and FS (the overlay). docs/protocol.md is the
// contract it implements.
//
// Vocabulary:
//   - a run is one harness run the server drives (a liveRun): its progress
//     token, its agentls/event numbering, its subagents' child tokens and,
//     with confirm: run, its stage of changes;
//   - a change is one file's new content as a tool computed it (base →
//     mine); a proposal is the changes sent in one workspace/applyEdit, after
//     they were checked against the editor's buffer (rebased onto it when the
//     user typed meanwhile) and, for clients that cannot confirm annotated
//     edits, confirmed with a question first;
//   - a hunk is a group of a TextDocumentEdit's edits whose lines touch or
//     overlap: the unit of a partial decision (the agentls extension of the
//     applyEdit result);
//   - a problem is one diagnostic the editor shows (agentls/diagnostics);
//     after an applied change the model hears the new ones.
//
// One [Server] serves one connection. Its LSP methods are split into files
// by method family: lifecycle.go, textsync.go, folders.go, configuration.go,
// codeaction.go, command.go. Runs: run.go (start, drive), report.go (events
// to progress), events.go, answer.go (text answers), subagents.go.
// Proposals: propose.go (checks, rebase, locks), confirm.go (the question),
// applyedit.go (the request and its answer), staged.go (confirm: run),
// rebase.go, hunks.go. The editor's diagnostics: diagnostics.go (the store),
// diagafter.go (the wait after a change, and what is new).
package lsp
