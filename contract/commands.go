package contract

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/policy"
)

// Commands the server executes (workspace/executeCommand).
const (
	CommandRun       = "agentls.run"
	CommandCancel    = "agentls.cancel"
	CommandApprovals = "agentls.approvals" // list, revoke and save policy rules; trust a workspace's policy file
)

// Commands are the commands the server announces, in order.
var Commands = []string{CommandRun, CommandCancel, CommandApprovals}

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
}

// RunResult is agentls.run's answer.
type RunResult struct {
	RunID string `json:"runId"`
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
