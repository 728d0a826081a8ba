package main

import (
	"os"
	"testing"
)

// TestMain runs the test binary as agentls itself when a test starts it so
// (AGENTLS_TEST_MAIN=1): for the tests that need agentls as a process of
// its own, to see what its commands can read of it, or to kill it.
func TestMain(m *testing.M) {
	if os.Getenv("AGENTLS_TEST_MAIN") == "1" {
		os.Unsetenv("AGENTLS_TEST_MAIN")
		main()
		return
	}
	os.Exit(m.Run())
}
