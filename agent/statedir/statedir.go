// Package statedir finds the folders where agentls keeps what it records
// per user (run traces, sessions): never inside a workspace.
package statedir

import (
	"errors"
	"path/filepath"
	"runtime"
)

// Dir returns the folder named leaf under agentls's state directory: the
// value of the environment variable envVar when set (made absolute; "off"
// gives ""), else $XDG_STATE_HOME/agentls/leaf, else
// ~/.local/state/agentls/leaf (%LOCALAPPDATA%\agentls\leaf on Windows).
// errNoDir is returned when none of them can be found.
func Dir(getenv func(string) string, envVar, leaf string, errNoDir error) (string, error) {
	if d := getenv(envVar); d != "" {
		if d == "off" {
			return "", nil
		}
		return filepath.Abs(d)
	}
	if d := getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "agentls", leaf), nil
	}
	if runtime.GOOS == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" {
			return filepath.Join(d, "agentls", leaf), nil
		}
		return "", errNoDir
	}
	if h := getenv("HOME"); filepath.IsAbs(h) {
		return filepath.Join(h, ".local", "state", "agentls", leaf), nil
	}
	return "", errNoDir
}

// ErrNoDir is an error for the folder of what, saying how to give one.
func ErrNoDir(what, envVar string) error {
	return errors.New("no state directory for " + what + " (set XDG_STATE_HOME, HOME or " + envVar + ")")
}
