package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// flushInput discards what was typed on the terminal f and not read yet.
func flushInput(f *os.File) {
	unix.IoctlSetInt(int(f.Fd()), unix.TCFLSH, unix.TCIFLUSH)
}
