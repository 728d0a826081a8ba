package contract

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/session"
)

// Commands the server executes (workspace/executeCommand).
const (
	CommandRun       = "agentls.run"
	CommandCancel    = "agentls.cancel"
	CommandApprovals = "agentls.approvals" // list, revoke and save policy rules; trust a workspace's policy file
	CommandSessions  = "agentls.sessions"  // list and delete sessions
	CommandRevert    = "agentls.revert"    // undo a run's accepted changes
)

// Commands are the commands the server announces, in order.
var Commands = []string{CommandRun, CommandCancel, CommandApprovals, CommandSessions, CommandRevert}

// RunArgs are the arguments of agentls.run.
type RunArgs struct {
	// Prompt is the task; ${selection}, ${file}, ${diagnostics} and
	// ${instruction} are expanded when the run starts.
	Prompt string `json:"prompt" jsonschema:"the task; ${selection}, ${file}, ${diagnostics} and ${instruction} are expanded when the run starts"`
	// URI is the active file; the run's workspace folder is the one that
	// holds it.
	URI         uri.URI               `json:"uri,omitzero" jsonschema:"the active file"`
	Range       *protocol.Range       `json:"range,omitzero" jsonschema:"the selection"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics,omitzero" jsonschema:"problems in scope"`
	// Action names the code action the command came from; an explain run is
	// read-only.
	Action string `json:"action,omitzero" jsonschema:"the code action the command came from"`
	// Ask asks a plugin to prompt the user before executing the command
	// (AskInstruction) and to put the answer in Instruction.
	Ask         string `json:"ask,omitzero" jsonschema:"what a plugin asks the user before it executes the command"`
	Instruction string `json:"instruction,omitzero" jsonschema:"what ${instruction} expands to"`
	// Title names the run in progress and answers ("Explain selection");
	// "": the prompt's first words.
	Title string `json:"title,omitzero" jsonschema:"a short name for the run"`
	// SessionID continues a session: the run's model gets the session's
	// conversation so far. "": the run starts a new session.
	SessionID string `json:"sessionId,omitzero" jsonschema:"continue this session (a follow-up); empty: start a new one"`
}

// RunResult is agentls.run's answer: the run, and the session it belongs
// to.
type RunResult struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
}

// CancelArgs are the arguments of agentls.cancel.
type CancelArgs struct {
	RunID string `json:"runId" jsonschema:"a run's id, or a subagent's (from subagent_start) to stop only the subagent"`
}

// ApprovalsArgs are the arguments of agentls.approvals. With no argument
// the command lists the rules and shows them to the user.
type ApprovalsArgs struct {
	// Action is ApprovalsList (the default), ApprovalsRevoke (a session
	// rule), ApprovalsSave (a session rule, into the policy file of its
	// workspace folder) or ApprovalsTrust (a workspace folder's policy file:
	// the server shows its allow rules and asks the user).
	Action string `json:"action,omitzero" jsonschema:"list (the default), revoke, save or trust"`
	ID     string `json:"id,omitzero" jsonschema:"the rule, for revoke and save"`
	// Folder is the workspace folder to trust, a path or a URI; the first
	// folder when empty.
	Folder string `json:"folder,omitzero" jsonschema:"for trust: the workspace folder (a path or URI); default the first"`
}

// Approvals actions.
const (
	ApprovalsList   = "list"
	ApprovalsRevoke = "revoke"
	ApprovalsSave   = "save"
	ApprovalsTrust  = "trust"
)

// ApprovalsResult is agentls.approvals' answer: the rules in force after
// the action, session rules first, then those of the policy files by rank.
// Session rules can be revoked and saved; file rules are changed in their
// file, which their ID names ("<file>:<line>").
type ApprovalsResult struct {
	Rules []policy.Rule `json:"rules"`
}

// Code action kinds: what a run started from a code action is for
// (RunArgs.Action), so a plugin can tell them apart.
const (
	ActionExplain  = "explain"
	ActionRefactor = "refactor"
	ActionDocument = "document"
	ActionTests    = "tests"
	ActionFix      = "fix"
	ActionFixAll   = "fixAll"
	ActionCustom   = "custom"
)

// Actions are the values of RunArgs.Action.
var Actions = []string{ActionExplain, ActionRefactor, ActionDocument, ActionTests, ActionFix, ActionFixAll, ActionCustom}

// AskInstruction in RunArgs.Ask asks a plugin to prompt the user for an
// instruction before it executes the command, and to pass the answer as
// RunArgs.Instruction.
const AskInstruction = "instruction"

// SessionsArgs are the arguments of agentls.sessions. With no argument the
// command lists the sessions.
type SessionsArgs struct {
	// Action is SessionsList (the default) or SessionsDelete.
	Action    string `json:"action,omitzero" jsonschema:"list (the default) or delete"`
	SessionID string `json:"sessionId,omitzero" jsonschema:"the session, for delete"`
}

// Sessions actions.
const (
	SessionsList   = "list"
	SessionsDelete = "delete"
)

// SessionsResult is agentls.sessions' answer: the sessions of the
// workspace's folders after the action, the most recently updated first,
// and the session files that do not read (each a sentence naming it).
type SessionsResult struct {
	Sessions []session.Info `json:"sessions"`
	Problems []string       `json:"problems,omitempty"`
	// Persistent is false when sessions are kept in memory only (no state
	// directory): they end with the server.
	Persistent bool `json:"persistent"`
}

// RevertArgs are the arguments of agentls.revert.
type RevertArgs struct {
	RunID string `json:"runId" jsonschema:"the run whose accepted changes to undo"`
}

// RevertResult is agentls.revert's answer, once the user has decided on
// the revert's proposal.
type RevertResult struct {
	RunID     string `json:"runId"`
	SessionID string `json:"sessionId"`
	// Outcome is the proposal's: applied (in part, when some files could
	// not be reverted: see Files), rejected, conflict (nothing could be
	// reverted cleanly, so nothing was proposed), failed or withdrawn.
	Outcome agent.Outcome          `json:"outcome"`
	Files   []session.RevertedFile `json:"files"`
	// Summary is a line for the user.
	Summary string `json:"summary"`
}
