//go:build race

package tools

// supervisorEnv is added to a supervisor's environment, not its shell's.
// The race detector's runtime waits a second when a process exits; the
// tests, built with it, run every command under a supervisor.
const supervisorEnv = "GORACE=atexit_sleep_ms=0"
