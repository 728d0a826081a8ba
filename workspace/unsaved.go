package workspace

import (
	"os"
	"slices"

	"github.com/agentls/agentls/edits/rope"
)

// Unsaved returns the canonical paths of the open buffers whose text is not
// what the disk holds (a buffer of a file never saved included), sorted.
// Programs other than the editor (a shell command) see the disk, without
// those changes.
func (w *Workspace) Unsaved() []string {
	w.mu.RLock()
	docs := make(map[string]rope.Rope, len(w.buffers))
	for path, b := range w.buffers {
		docs[path] = b.doc
	}
	w.mu.RUnlock()
	var out []string
	for path, doc := range docs {
		// Compared piece by piece: the buffer is not flattened for it.
		disk, err := os.ReadFile(path)
		if err != nil || len(disk) != doc.Len() || !doc.Equal(string(disk)) {
			out = append(out, path)
		}
	}
	slices.Sort(out)
	return out
}
