package emacs_test

// The tests build the agentls binary with the go command, which Go's test
// cache does not see. Importing the packages the server is made of ties
// the cached result to them, so a change there reruns these tests.
import (
	_ "github.com/agentls/agentls/lsp"
	_ "github.com/agentls/agentls/runner"
)
