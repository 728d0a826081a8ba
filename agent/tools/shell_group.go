//go:build unix

package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"
)

// shellDrain is how long output is still read after a command ends, from
// processes that left its process group.
const shellDrain = 2 * time.Second

// execGroup runs command with shell in a process group of its own,
// writing its output to out. When ctx ends or the timeout passes the whole
// group is killed; when the command ends, what it left running in the group
// is killed too. A process that leaves the group (setsid, a daemon) is not
// found, and if agentls itself is killed the group runs on.
func execGroup(ctx context.Context, shell, command, dir string, env []string, timeout time.Duration, out io.Writer) shellRun {
	cmdCtx, cancel := context.WithTimeoutCause(ctx, timeout, errShellTimeout)
	defer cancel()
	cmd := exec.CommandContext(cmdCtx, shell, "-c", command)
	cmd.Dir, cmd.Env = dir, env
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return killGroup(cmd.Process.Pid) }
	// A pipe of our own, not exec's: Wait returns when the shell exits, and
	// the group is killed before the output is drained, so a background
	// process that holds the pipe cannot hold up the call.
	pr, pw, err := os.Pipe()
	if err != nil {
		return shellRun{err: err}
	}
	defer pr.Close()
	cmd.Stdout, cmd.Stderr = pw, pw
	err = cmd.Start()
	pw.Close()
	if err != nil {
		return shellRun{err: err}
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, pr)
	}()
	waitErr := cmd.Wait()
	killGroup(cmd.Process.Pid)
	select {
	case <-drained:
	case <-time.After(shellDrain):
		pr.Close() // a process that left the group still holds the pipe
		<-drained
	}

	r := shellRun{timedOut: errors.Is(context.Cause(cmdCtx), errShellTimeout) && ctx.Err() == nil}
	if ps := cmd.ProcessState; ps != nil {
		ws, _ := ps.Sys().(syscall.WaitStatus)
		r.setStatus(ws)
	} else if waitErr != nil {
		r.err = waitErr
	}
	return r
}

// setStatus records how the shell ended.
func (r *shellRun) setStatus(ws syscall.WaitStatus) {
	r.exit = ws.ExitStatus()
	if ws.Signaled() {
		r.signal = ws.Signal().String()
	}
}

// shellPath is bash, or sh where there is none.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// killGroup kills the process group whose leader is pid.
func killGroup(pid int) error {
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil // already gone
	}
	return err
}
