package lsptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildServer builds the agentls binary into dir for tests that run a real
// client against it, and returns its path. $AGENTLS_TEST_BIN, when set,
// names a prebuilt binary to use instead (for working on a plugin alone).
func BuildServer(dir string) (string, error) {
	if bin := os.Getenv("AGENTLS_TEST_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(dir, "agentls")
	goCmd, err := exec.LookPath("go")
	if err != nil {
		goCmd = filepath.Join(os.Getenv("GOROOT"), "bin", "go")
	}
	out, err := exec.Command(goCmd, "build", "-o", bin, "github.com/agentls/agentls/cmd/agentls").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build github.com/agentls/agentls/cmd/agentls: %v\n%s", err, out)
	}
	return bin, nil
}
