//go:build !linux

package main

// undumpable does nothing here: other systems have no per-process switch
// that hides a process's environment from the user's other processes (on
// macOS, ps -E shows it), so there a command can read the credentials the
// process started with.
func undumpable() error { return nil }
