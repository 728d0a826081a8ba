//go:build !unix

package tools

import (
	"context"
	"errors"
	"io"
	"os/exec"
	"time"
)

// execShell runs command with bash -c, writing its output to out. Without
// process groups, only the shell itself is killed when ctx ends or the
// timeout passes. Not covered here: the processes the command started
// outlive it, and if agentls is killed the command runs on (a Windows job
// object would hold them).
func execShell(ctx context.Context, command, dir string, env []string, timeout time.Duration, out io.Writer) shellRun {
	cmdCtx, cancel := context.WithTimeoutCause(ctx, timeout, errShellTimeout)
	defer cancel()
	cmd := exec.CommandContext(cmdCtx, "bash", "-c", command)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = dir, env, out, out
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	r := shellRun{timedOut: errors.Is(context.Cause(cmdCtx), errShellTimeout) && ctx.Err() == nil}
	if ps := cmd.ProcessState; ps != nil {
		r.exit = ps.ExitCode()
	} else if err != nil {
		r.err = err
	}
	return r
}
