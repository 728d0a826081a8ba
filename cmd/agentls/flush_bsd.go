//go:build darwin || freebsd || netbsd || openbsd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed on the terminal f and not read yet.
func flushInput(f *os.File) {
	unix.IoctlSetPointerInt(int(f.Fd()), unix.TIOCFLUSH, 1) // FREAD: the input queue
}
