// Package trace records agent runs as JSON Lines and replays them offline.
//
// Vocabulary:
//
//   - A trace is one run's file: a header record, then a record per model
//     call, per event and per policy check, in the order they happened. A
//     record is one line, written as it happens, so a crash leaves a
//     readable prefix. A subagent's records carry its own run id and its
//     parent's.
//   - A [Writer] writes a trace. It is a Model layer (model_call records:
//     what went in, the full answer, usage, retries), a Policy layer (policy
//     records: verdict and rule of each tool call) and the run's event sink
//     (event records: tool calls and results, approvals, proposals and
//     decisions, subagents, compression, routing, the stop reason). Secret
//     values never reach the file.
//   - A [Replay] runs the harness again from a trace. It is the Model that
//     answers each call with the recorded answer; it gives side-effecting
//     tools (shell commands) their recorded results without running them,
//     and answers proposals, approvals and policy checks as they were
//     answered. The first point where the harness asks something the
//     recording did not is a [Divergence], reported with both sides.
//
// Traces live in the user's state directory ([Dir]), never in a workspace.
package trace
