// This file keeps Go tooling out of the extension: a nested module is not
// part of the agentls module, so ./... never walks node_modules.
module agentls.invalid/editors/vscode

go 1.26.0
