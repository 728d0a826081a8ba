//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// A process is a server's command, in a process group of its own.
type process struct{ cmd *exec.Cmd }

func newProcess(cmd *exec.Cmd) *process {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return &process{cmd: cmd}
}

func (p *process) started() bool { return p.cmd.Process != nil }

// kill kills the command's whole process group: what the server started
// ends with it.
func (p *process) kill() {
	if p.cmd.Process != nil {
		syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	}
}
