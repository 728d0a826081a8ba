package agent

import (
	"context"
	"encoding/json"
	"io/fs"
	"time"
)

// FS is the file view the tools read: the editor's unsaved buffers over the
// disk, confined to the workspace.
type FS interface {
	// Resolve turns a path the model gave (relative to the workspace root or
	// absolute inside it) into a clean absolute path, or refuses it with an
	// error the model can read.
	Resolve(path string) (string, error)
	// ReadFile reads a resolved path, the editor's buffer first. A missing
	// file gives an error wrapping fs.ErrNotExist.
	ReadFile(path string) (string, error)
	// ReadDir lists a resolved directory.
	ReadDir(path string) ([]fs.DirEntry, error)
	// Links lists the paths that opening a resolved path passes through:
	// the path itself, where each symlink on the way leads, and last the
	// real file, every symlink evaluated (for a new file: its nearest
	// existing folder's real path, the rest appended). A path that meets no
	// symlink gives just itself. Tools check every one of them.
	Links(path string) ([]string, error)
	// Rel names a resolved path the way the user sees it (relative to its
	// workspace folder).
	Rel(path string) string
}

// A Change is one file's proposed new content.
type Change struct {
	Path string // resolved absolute path, as the editor names the file
	// Name is the path as the user sees it (workspace-relative); when Path
	// leads through a symlink to another file, it names both: "a.md →
	// docs/b.md".
	Name string
	// Target is the real file the change writes, every symlink of Path
	// evaluated, as the tool checked it (Path itself when it meets no
	// symlink). A proposer that writes checks that Path still leads there,
	// and writes there; "" skips the check.
	Target string
	Old    string // the content the change was computed against ("" for a new file)
	New    string
	Create bool   // the file does not exist yet
	Tool   string // the tool that proposes it
	Reason string // why, in the model's words, when it said
	// RunID and CallID name the run and the tool call that propose it
	// (Call.Propose sets them), so a front end can show the proposal on
	// the call.
	RunID, CallID string
}

// Outcome is what became of a proposed change.
type Outcome string

// Outcomes.
const (
	OutcomeApplied  Outcome = "applied"  // the editor applied the change
	OutcomeRejected Outcome = "rejected" // the user said no
	OutcomeConflict Outcome = "conflict" // the file changed since the tool read it
	OutcomeFailed   Outcome = "failed"   // the editor could not apply it
	// OutcomeStaged: the change is kept with the run's others, to be
	// proposed together when the run completes (confirm: run).
	OutcomeStaged Outcome = "staged"
	// OutcomeWithdrawn is never a Proposer's answer: it reports a proposal
	// that ended without one (the run was cancelled).
	OutcomeWithdrawn Outcome = "withdrawn"
)

// A Decision is the editor's answer to a proposal.
type Decision struct {
	Outcome Outcome
	// Message is the user's or the editor's reason, if any.
	Message string
	// Final is the file's content after the decision when the user changed
	// the proposal before accepting it (edited or rejected some hunks); ""
	// when the proposal was applied as sent.
	Final string
	// RejectedHunks lists the 0-based hunks of the diff the user rejected.
	RejectedHunks []int
	// Rebased says the change was applied to Base, not to Change.Old: the
	// user had changed the file since the tool read it, and the change was
	// applied on top of the user's edits (Final holds the result).
	Rebased bool
	Base    string
	// Diagnostics is what the editor's diagnostics showed after an applied
	// change; nil when the proposer has none to tell (the editor does not
	// send diagnostics, or the change was not applied).
	Diagnostics *DiagnosticsAfter
}

// DiagnosticsAfter compares the problems the editor showed after an applied
// change with those it showed before.
type DiagnosticsAfter struct {
	// InTime reports that the editor sent diagnostics for the changed
	// files' new text before the wait ended. When false, New and Gone
	// compare with what it had sent by then.
	InTime bool
	// Wait is the bound of the wait.
	Wait time.Duration
	// New are the problems, by path, that the editor did not show before
	// the change; Gone, those it showed before and no longer does.
	New, Gone map[string][]Diagnostic
}

// Proposer sends changes to the user. Propose blocks until the user or the
// editor decides, or ctx ends (then it returns ctx's error and the change
// must not be applied afterwards).
type Proposer interface {
	Propose(ctx context.Context, c Change) (Decision, error)
}

// An Approval asks the user to allow one risky action, or, with Kind
// ApprovalLoop, whether a run whose model repeats itself should go on.
type Approval struct {
	// Kind is "" for a tool call, ApprovalLoop for the loop question.
	Kind        string `json:"kind,omitempty"`
	Tool        string `json:"tool"`
	Command     string `json:"command,omitempty"`
	Dir         string `json:"dir,omitempty"`
	Description string `json:"description,omitempty"`
	// Hosts are the web hosts a call would reach (web_fetch); policy rules
	// may allow them by name.
	Hosts []string `json:"hosts,omitempty"`
	// Server is the MCP server of a call of one of its tools, ServerTool
	// the tool's name there, and Args the call's arguments (JSON): what the
	// user is asked to allow.
	Server     string          `json:"server,omitempty"`
	ServerTool string          `json:"serverTool,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	// Rule is the rule an "always" answer would add, such as "go test".
	Rule    string `json:"rule,omitempty"`
	Allowed *bool  `json:"allowed,omitempty"` // set on approval_decided
	// Withdrawn, on approval_decided, says the question ended without an
	// answer (the run was cancelled); Allowed is then false.
	Withdrawn bool `json:"withdrawn,omitempty"`
	// RunID and CallID name the run and the tool call that ask (Call.Approve
	// sets them; the loop question has none), so a front end can ask on
	// the call. Events carry the call already.
	RunID  string `json:"-"`
	CallID string `json:"-"`
}

// ApprovalLoop is the Kind of the question a run asks when its model keeps
// repeating itself after a warning: allowed means keep going, denied means
// stop. Its Description says what the model repeats and asks; Tool is
// "loop_detection". An Approver that cannot ask a person answers no.
const ApprovalLoop = "loop"

// Approver asks the user for permission. Approve blocks until answered or
// ctx ends; it returns whether the action is allowed.
type Approver interface {
	Approve(ctx context.Context, a Approval) (bool, error)
}
