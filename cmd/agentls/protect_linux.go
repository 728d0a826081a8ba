package main

import (
	"fmt"
	"syscall"
)

// undumpable marks the process not dumpable (prctl PR_SET_DUMPABLE 0):
// /proc/<pid>/environ, mem and the other files that show its memory become
// readable only by root, and processes of the same user cannot attach to
// it with ptrace. The commands it runs are dumpable again (execve resets the
// flag), so nothing changes for them. Side effects: no core dumps, and a
// debugger needs root.
func undumpable() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_DUMPABLE, 0, 0); errno != 0 {
		return fmt.Errorf("prctl(PR_SET_DUMPABLE): %w", errno)
	}
	return nil
}
