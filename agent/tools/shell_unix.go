//go:build unix && !linux

package tools

import (
	"context"
	"io"
	"time"
)

// execShell runs command in a process group of its own (see execGroup).
// Not covered here, unlike on Linux: a process that leaves the group
// (setsid, a daemon) outlives the call, and if agentls is killed with
// SIGKILL the command runs on. These systems have no child subreaper that
// agentls uses (FreeBSD's procctl(PROC_REAP_ACQUIRE) would do).
func execShell(ctx context.Context, command, dir string, env []string, timeout time.Duration, out io.Writer) shellRun {
	return execGroup(ctx, shellPath(), command, dir, env, timeout, out)
}
