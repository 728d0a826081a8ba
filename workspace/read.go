package workspace

import (
	"fmt"
	"io/fs"
	"os"
)

// A File is the text of a file as the editor sees it.
type File struct {
	Path string // canonical path
	Text string
	// Version is the buffer's version when Open; 0 otherwise.
	Version int32
	// Open reports that Text is the editor's buffer, which may be newer than
	// the disk.
	Open bool
	// Exists reports that the file is on disk. An open buffer of a file that
	// was never saved has Open set and Exists clear.
	Exists bool
}

// ReadFile returns the text of path: the editor's buffer when it is open,
// else the file on disk. path must already be resolved (see Resolve); a file
// that is neither open nor on disk gives an error wrapping fs.ErrNotExist.
func (w *Workspace) ReadFile(path string) (File, error) {
	path = canonical(w.rootList(), path)
	if text, version, ok := w.Buffer(path); ok {
		if err := w.unsynced(path); err != nil {
			return File{}, fmt.Errorf("%s: %w since a change failed (%v); reopen the file in the editor", path, ErrOutOfSync, err)
		}
		// A stat error other than "not exist" (permissions, say) leaves Exists
		// clear too: the buffer is readable, and a later write will report
		// the real problem.
		_, err := os.Stat(path)
		return File{Path: path, Text: text, Version: version, Open: true, Exists: err == nil}, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, err
	}
	return File{Path: path, Text: string(data), Exists: true}, nil
}

// ReadDir lists the directory path on disk, sorted by name. Buffers the
// editor has not saved yet are not listed.
func (w *Workspace) ReadDir(path string) ([]fs.DirEntry, error) {
	return os.ReadDir(canonical(w.rootList(), path))
}

// unsynced returns why the buffer of the canonical path is out of sync, or
// nil.
func (w *Workspace) unsynced(path string) error {
	w.mu.RLock()
	defer w.mu.RUnlock()
	if b := w.buffers[path]; b != nil {
		return b.unsynced
	}
	return nil
}
