// Package agent is the harness: the ReAct loop that drives a model and its
// tools for one task, and the events that loop emits.
//
// Vocabulary:
//
//   - A run is one agent working on one task until it stops. It has a run id,
//     its own history and its own tool registry. [Run] returns the run as a
//     stream of [Event]s that ends with exactly one [EventRunEnd].
//   - A turn is one model call and the tool calls it asked for. Its prompt id
//     is "<runId>#<turn>".
//   - A tool call is one function call of a turn. The calls of a turn are
//     scheduled together and their results go back to the model in the
//     model's order.
//   - A subagent is another run started inside a tool call of its parent; its
//     events carry the parent's run id.
//
// The harness never touches the editor, the disk or the network itself: it
// reads through [FS], proposes changes through [Proposer], asks permission
// through [Approver] and talks to the model through [Model]. The caller
// implements them (lsp over the Language Server Protocol, cmd/agentls on a
// terminal, tests in memory).
package agent
