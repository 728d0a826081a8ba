//go:build unix

package mcp

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
)

// startChild starts a process that outlives the call that started it, in
// the server's process group, and returns its id.
func startChild() int {
	cmd := exec.Command("sleep", "300")
	if cmd.Start() != nil {
		return 0
	}
	return cmd.Process.Pid
}

// running reports whether the process pid runs (a zombie does not).
func running(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i < 0 || i+2 >= len(s) || s[i+2] != 'Z'
}
