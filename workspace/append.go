package workspace

import (
	"errors"
	"fmt"
)

// AppendFile appends the text of path, as ReadFile reads it, to buf, unless
// it is longer than max bytes; it returns the text's length either way. It
// spares searches, which read thousands of files into one buffer, a new
// string for each.
func (w *Workspace) AppendFile(buf []byte, path string, max int64) ([]byte, int64, error) {
	path = canonical(w.rootList(), path)
	w.mu.RLock()
	b := w.buffers[path]
	w.mu.RUnlock()
	if b == nil {
		return appendDisk(buf, path, max)
	}
	if b.unsynced != nil {
		return buf, 0, fmt.Errorf("%s: %w since a change failed (%v); reopen the file in the editor", path, ErrOutOfSync, b.unsynced)
	}
	size := int64(b.doc.Len())
	if size > max {
		return buf, size, nil
	}
	return b.doc.AppendTo(buf), size, nil
}

// AppendFile is Workspace.AppendFile for the folder's view. view must be
// f itself, the agent.FS the caller reads through: a view that embeds a
// Folder to read differently (staged changes, say) gets an error wrapping
// errors.ErrUnsupported rather than the folder's text, so that nothing
// reads around it.
func (f *Folder) AppendFile(view any, buf []byte, path string, max int64) ([]byte, int64, error) {
	if view != any(f) {
		return buf, 0, fmt.Errorf("read %s through another view: %w", path, errors.ErrUnsupported)
	}
	return f.w.AppendFile(buf, path, max)
}
