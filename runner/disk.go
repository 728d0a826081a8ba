package runner

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/workspace"
)

// Front ends that write changes to disk themselves (the terminal, a
// replay's scratch copy, an ACP client that cannot write files) write them
// here: only where the tool checked the change would go, and only over the
// text the change was computed against.

// CheckLink checks that a change's path still leads to the file its tool
// checked (agent.Change.Target): a folder swapped for a symlink since gets
// nothing. It returns the file to write, every symlink evaluated; when ok
// is false, d is the answer.
func CheckLink(ch agent.Change) (dest string, d agent.Decision, ok bool) {
	if ch.Target == "" {
		return ch.Path, agent.Decision{}, true
	}
	real, err := workspace.Real(ch.Path)
	if err != nil || real != ch.Target {
		return "", agent.Decision{Outcome: agent.OutcomeConflict,
			Message: fmt.Sprintf("%s no longer leads to the file that was checked (a symlink changed); nothing was written", ch.Name)}, false
	}
	return real, agent.Decision{}, true
}

// CheckDisk checks that dest, the file a change writes (see CheckLink),
// still holds on disk what the change was computed against (absent for a
// new file); when ok is false, d is the answer.
func CheckDisk(dest string, ch agent.Change) (d agent.Decision, ok bool) {
	cur, err := os.ReadFile(dest)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, false
	}
	return CheckText(err == nil, string(cur), ch)
}

// CheckText checks that a file, as it exists (or not) and reads now, is
// what a change was computed against; when ok is false, d is the answer.
func CheckText(exists bool, cur string, ch agent.Change) (d agent.Decision, ok bool) {
	if exists == ch.Create || exists && cur != ch.Old {
		return agent.Decision{Outcome: agent.OutcomeConflict}, false
	}
	return agent.Decision{}, true
}

// WriteChange writes a change to disk after both checks (CheckLink,
// CheckDisk), in one step (WriteAtomic), to the real file its path leads
// to: a symlink stays a symlink.
func WriteChange(ch agent.Change) agent.Decision {
	dest, d, ok := CheckLink(ch)
	if !ok {
		return d
	}
	if d, ok := CheckDisk(dest, ch); !ok {
		return d
	}
	if err := WriteAtomic(dest, ch.New); err != nil {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}
	}
	return agent.Decision{Outcome: agent.OutcomeApplied}
}

// WriteAtomic replaces path's content in one step, keeping its mode: the
// new content goes to a temporary file beside it, renamed over it.
func WriteAtomic(path, content string) error {
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentls-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.WriteString(content); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
