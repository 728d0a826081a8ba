//go:build !unix

package workspace

import (
	"io"
	"os"
)

// appendDisk appends the file at path to buf unless it is longer than max
// bytes, and returns its length.
func appendDisk(buf []byte, path string, max int64) ([]byte, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return buf, 0, err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return buf, 0, err
	}
	if !info.Mode().IsRegular() {
		return buf, 0, &os.PathError{Op: "read", Path: path, Err: os.ErrInvalid}
	}
	if info.Size() > max {
		return buf, info.Size(), nil
	}
	start := len(buf)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)-start) > max {
			return buf[:start], int64(len(buf) - start), nil
		}
		if err == io.EOF {
			return buf, int64(len(buf) - start), nil
		}
		if err != nil {
			return buf[:start], 0, err
		}
	}
}
