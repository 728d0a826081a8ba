package main

import "github.com/agentls/agentls/agent"

// Exit codes. A run's code tells its stop reason; README's Terminal
// section lists them.
const (
	exitGoal     = 0
	exitError    = 1
	exitUsage    = 2 // bad flags, no API key, an unreadable trace
	exitDiverged = 8 // a replay asked something its recording did not
)

var stopCodes = map[agent.StopReason]int{
	agent.StopGoal:           exitGoal,
	agent.StopError:          exitError,
	agent.StopAborted:        3,
	agent.StopTimeout:        4,
	agent.StopMaxTurns:       5,
	agent.StopNoCompleteTask: 6,
	agent.StopLoop:           7,
	agent.StopBudget:         9,
}

// exitCode is the exit code of a run that stopped for reason.
func exitCode(reason agent.StopReason) int {
	if c, ok := stopCodes[reason]; ok {
		return c
	}
	return exitError
}
