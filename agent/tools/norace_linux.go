//go:build !race

package tools

// supervisorEnv is added to a supervisor's environment, not its shell's
// (see race_linux.go).
const supervisorEnv = ""
