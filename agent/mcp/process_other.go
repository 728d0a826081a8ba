//go:build !unix

package mcp

import "os/exec"

// A process is a server's command. Outside Unix there are no process
// groups: only the command itself is killed.
type process struct{ cmd *exec.Cmd }

func newProcess(cmd *exec.Cmd) *process { return &process{cmd: cmd} }

func (p *process) started() bool { return p.cmd.Process != nil }

func (p *process) kill() {
	if p.cmd.Process != nil {
		p.cmd.Process.Kill()
	}
}
