//go:build unix

package workspace

import (
	"io/fs"
	"syscall"
)

// appendDisk appends the file at path to buf unless it is longer than max
// bytes, and returns its length. It calls the system directly: an os.File
// per file registers with the poller and costs a third more.
func appendDisk(buf []byte, path string, max int64) ([]byte, int64, error) {
	var fd int
	var err error
	for {
		// O_NONBLOCK: a pipe must not block the search that opens it.
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return buf, 0, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return buf, 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return buf, 0, &fs.PathError{Op: "read", Path: path, Err: syscall.EINVAL}
	}
	if st.Size > max {
		return buf, st.Size, nil
	}
	start := len(buf)
	// One byte more than the size, so that the end is seen in one read.
	if need := start + int(st.Size) + 1; cap(buf) < need {
		grown := make([]byte, start, need+need/4)
		copy(grown, buf)
		buf = grown
	}
	for {
		want := cap(buf) - len(buf)
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf[:start], 0, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		buf = buf[:len(buf)+n]
		if int64(len(buf)-start) > max {
			return buf[:start], int64(len(buf) - start), nil // grew since
		}
		// A short read that has all the file's bytes is its end: that
		// saves the read that would return nothing. (Some file systems
		// read short in the middle too: then the loop goes on.)
		if n == 0 || n < want && int64(len(buf)-start) >= st.Size {
			break
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
	return buf, int64(len(buf) - start), nil
}
