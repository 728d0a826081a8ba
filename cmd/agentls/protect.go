package main

import (
	"os"
	"strings"

	"github.com/agentls/agentls/agent/policy"
)

// protect keeps the credentials the process started with away from the
// commands it runs: the variables that hold secrets are taken out of its
// own environment (run and serve keep the values they need, read before),
// so nothing it starts later inherits them; and, where the system allows,
// other processes of the user (an approved command among them) cannot read
// the process's memory or its initial environment block, which removing a
// variable does not erase (see undumpable).
//
// GOOGLE_APPLICATION_CREDENTIALS stays: it names a file, which Vertex AI's
// default credentials read each time a model client is made.
func protect() error {
	for _, kv := range os.Environ() {
		name, value, _ := strings.Cut(kv, "=")
		if name != "GOOGLE_APPLICATION_CREDENTIALS" && policy.SecretVar(name, value) {
			os.Unsetenv(name)
		}
	}
	return undumpable()
}
