package workspace

import (
	"bytes"
	"os"
	"slices"
)

// Unsaved returns the canonical paths of the open buffers whose text is not
// what the disk holds (a buffer of a file never saved included), sorted.
// Programs other than the editor (a shell command) see the disk, without
// those changes.
func (w *Workspace) Unsaved() []string {
	w.mu.RLock()
	texts := make(map[string]string, len(w.buffers))
	for path, b := range w.buffers {
		texts[path] = b.text
	}
	w.mu.RUnlock()
	var out []string
	for path, text := range texts {
		disk, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(disk, []byte(text)) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}
