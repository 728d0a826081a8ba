//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd

package main

import "os"

// flushInput would discard what was typed on the terminal f and not read
// yet; this system has no way agentls knows of.
func flushInput(f *os.File) {}
