// Package session keeps conversations that outlive a run and a process.
//
// Vocabulary:
//
//   - A session is one conversation in one workspace folder: runs that
//     continue one another. A follow-up run starts from the history the
//     session's last run left, thought signatures included.
//   - A session file is the session as JSON Lines under the user's state
//     directory ([Dir]), never in the workspace: a header, then a record
//     for each thing as it happens (a run begins, its history changes, a
//     change of a file is accepted, a run ends, a run is reverted). A crash
//     loses at most the record being written. A file that does not read
//     ([ErrCorrupt]) or that a newer agentls wrote ([ErrNewer]) is never
//     written to.
//   - A [Writer] is the one holder of a session that may write it: a run,
//     or a revert. Two never hold one session at once ([ErrBusy]), in one
//     process or across processes.
//   - A [Change] is a change of a file a run's user accepted: the file
//     before and after. Reverting a run undoes its changes.
//
// The package knows nothing of the editor or the protocol: the server, the
// terminal and any other front end keep sessions the same way.
package session

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/statedir"
)

// Format is the version of the session files this package writes; it
// reads no newer one.
const Format = 1

// Errors. Each error of the package wraps one of them.
var (
	ErrNotFound = errors.New("no such session")
	ErrBusy     = errors.New("session busy")
	ErrCorrupt  = errors.New("session file does not read")
	ErrNewer    = errors.New("session file written by a newer agentls")
	// ErrNothingToRevert: the run changed no file, or every change it
	// proposed was rejected, or its changes were reverted already.
	ErrNothingToRevert = errors.New("nothing to revert")
)

// EnvDir names the environment variable that moves sessions to another
// folder; "off" keeps them in memory, for the process's life.
const EnvDir = "AGENTLS_SESSION_DIR"

// ErrNoDir reports that there is no state directory for sessions.
var ErrNoDir = statedir.ErrNoDir("sessions", EnvDir)

// Dir returns the folder sessions are kept in: $AGENTLS_SESSION_DIR, else
// $XDG_STATE_HOME/agentls/sessions, else ~/.local/state/agentls/sessions
// (%LOCALAPPDATA%\agentls\sessions on Windows). It returns "" when
// AGENTLS_SESSION_DIR is "off".
func Dir(getenv func(string) string) (string, error) {
	return statedir.Dir(getenv, EnvDir, "sessions", ErrNoDir)
}

// Info is what a listing tells of a session.
type Info struct {
	ID      string    `json:"id"`
	Title   string    `json:"title"`
	Root    string    `json:"root"` // the workspace folder
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"` // the last record
	Runs    []RunInfo `json:"runs"`
	// Usage is the tokens and estimated cost of every run.
	Usage agent.Usage `json:"usage"`
	// Busy names what holds the session now in this process (a run id),
	// "" when nothing does.
	Busy string `json:"busy,omitempty"`
}

// RunInfo is one run of a session.
type RunInfo struct {
	ID      string    `json:"id"`
	Prompt  string    `json:"prompt"`
	Model   string    `json:"model,omitempty"`
	Started time.Time `json:"started"`
	// End is how the run ended; nil when it did not (it runs, or its
	// process died).
	End   *agent.RunEnd `json:"end,omitempty"`
	Usage agent.Usage   `json:"usage"`
	// Changes counts the changes of files the user accepted; Reverted says
	// a revert undid some of them.
	Changes  int  `json:"changes"`
	Reverted bool `json:"reverted,omitempty"`
}

// A Change is a change of one file that the user accepted: the file before
// and after it, whole. Create marks a file the change created.
type Change struct {
	Path   string `json:"path"` // absolute
	Name   string `json:"name"` // as the user sees it
	Before string `json:"before"`
	After  string `json:"after"`
	Create bool   `json:"create,omitempty"`
}

// A Revert records a revert of a run: what became of each file.
type Revert struct {
	Run   string         `json:"run"`
	Files []RevertedFile `json:"files"`
}

// Outcomes of a file in a revert.
const (
	Reverted = "reverted" // its text is back as before the run (the user's later typing kept)
	Deleted  = "deleted"  // the run created it; it is deleted
	Emptied  = "emptied"  // the run created it; the editor cannot delete files, so it is emptied
	Conflict = "conflict" // the user changed the run's lines since: left as it is
	Declined = "declined" // the user turned the revert of it down
	Failed   = "failed"   // the editor could not apply the revert of it
)

// A RevertedFile is one file of a revert.
type RevertedFile struct {
	Name    string `json:"name"`
	Outcome string `json:"outcome"`
	Message string `json:"message,omitempty"`
}

// Done reports whether the revert changed the file.
func (f RevertedFile) Done() bool {
	return f.Outcome == Reverted || f.Outcome == Deleted || f.Outcome == Emptied
}

// Note is what the model of the session's next run is told of the revert.
func (rv Revert) Note() string {
	var done, left []string
	for _, f := range rv.Files {
		switch {
		case f.Done():
			done = append(done, f.Name)
		default:
			why := f.Outcome
			if f.Message != "" {
				why = f.Message
			}
			left = append(left, fmt.Sprintf("%s (%s)", f.Name, why))
		}
	}
	if len(done) == 0 {
		return ""
	}
	note := fmt.Sprintf("The user reverted the changes of an earlier run (%s): %s are back as they were before it; read them again before relying on them.", rv.Run, strings.Join(done, ", "))
	if len(left) > 0 {
		note += " Not reverted: " + strings.Join(left, "; ") + "."
	}
	return note
}
