//go:build unix

package session

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// lockFile takes f's lock for this process, or fails with ErrBusy when
// another process holds it.
func lockFile(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return fmt.Errorf("%w: another agentls process is using it", ErrBusy)
	}
	return err
}

func unlockFile(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
}
