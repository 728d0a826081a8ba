// Package acp is agentls's Agent Client Protocol front end (`agentls acp`):
// the harness that `agentls serve` runs behind LSP, behind ACP version 1
// (JSON-RPC 2.0, one message a line, on stdin and stdout), for Zed,
// JetBrains IDEs, CodeCompanion and every other ACP client.
//
// Runs are built by the run builder (package runner) exactly as for the
// other front ends: the same tools, policy, context files, subagents,
// traces and settings. This package says only how a run asks and shows:
//
//   - how it proposes a change (propose.go): session/request_permission
//     with the diff, then fs/write_text_file when the client offers it,
//     else an atomic write to disk, the target checked again;
//   - how it asks to allow an action (approve.go): session/request_permission
//     with the policy's answers, "always" as in the other front ends;
//   - how it reads (fs.go): fs/read_text_file when the client offers it,
//     so that unsaved buffers are seen, confined like the workspace view;
//   - how it shows progress (updates.go): session/update.
//
// Vocabulary:
//
//   - a connection is one client on stdin and stdout; it ends when the
//     client closes its end;
//   - a session (session.go) is one conversation of the client, in one
//     folder (its cwd), with its mode and model;
//   - a turn (prompt.go) is one session/prompt: one harness run, whose
//     events become session/update notifications until its stop reason;
//   - a tool call id, on the wire, is the run's id and the harness's call
//     id, so that a subagent's calls and later turns' calls never clash.
//
// The wire is github.com/coder/acp-go-sdk (wire.go keeps it behind this
// package: malformed and oversized lines get JSON-RPC errors there, and no
// handler's panic reaches it).
package acp
