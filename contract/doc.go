// Package contract is agentls's contract with the editors, in one place:
// the commands and their arguments and results, the agentls/event
// notification and its payloads, the agentls extension of the
// workspace/applyEdit answer, the settings with their defaults and allowed
// values, change annotation ids, and hunk numbering.
//
// The JSON Schemas of these types are generated from them ([Schemas]) and
// committed under docs/schema; the VS Code extension's types are generated
// from the same schemas (editors/vscode/src/contract.ts), the Neovim plugin's
// tests read them, and docs/ is tested against them. Change a type here, run
// `go test ./contract -update`, and every copy follows.
//
// The package holds types and the few rules that go with them (settings
// validation, hunk grouping); the server (package lsp), the terminal and
// other front ends implement them.
package contract
