//go:build !unix

package session

import "os"

// lockFile does nothing where there is no flock: two processes must not
// run one session at once, and nothing stops them.
func lockFile(f *os.File) error { return nil }

func unlockFile(f *os.File) {}
