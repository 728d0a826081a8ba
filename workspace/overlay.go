package workspace

import (
	"errors"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

var (
	// ErrNotOpen reports a change to a document the editor has not opened.
	ErrNotOpen = errors.New("document is not open")
	// ErrVersion reports a change whose version is not above the buffer's.
	ErrVersion = errors.New("document version did not increase")
)

// A Change is one textDocument/didChange content change. A nil Range replaces
// the whole text; otherwise Range is in the positions of the text as left by
// the changes before it in the same notification.
type Change struct {
	Range *protocol.Range
	Text  string
}

// A buffer is the editor's text of one open document.
type buffer struct {
	text    string
	version int32
}

// Open records the editor's text of path (didOpen). Opening an open path
// replaces its buffer, whatever the version.
func (w *Workspace) Open(path, text string, version int32) {
	b := &buffer{text: text, version: version}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buffers[canonical(w.roots, path)] = b
}

// Close forgets the buffer of path (didClose); reads go to disk again.
func (w *Workspace) Close(path string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.buffers, canonical(w.roots, path))
}

// Buffer returns the editor's text of path and its version, if path is open.
func (w *Workspace) Buffer(path string) (text string, version int32, ok bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	b, ok := w.buffers[canonical(w.roots, path)]
	if !ok {
		return "", 0, false
	}
	return b.text, b.version, true
}

// Change applies the content changes of one didChange notification, in order,
// each against the text the previous ones left, and sets the buffer's version.
// Positions are in enc, the negotiated position encoding.
//
// It fails with ErrNotOpen, with ErrVersion when version is not above the
// buffer's, or when a range does not fit the text; on failure the buffer is
// unchanged.
func (w *Workspace) Change(path string, version int32, changes []Change, enc edits.Encoding) error {
	for {
		w.mu.RLock()
		key := canonical(w.roots, path)
		old := w.buffers[key]
		w.mu.RUnlock()

		if old == nil {
			return fmt.Errorf("change %s: %w", path, ErrNotOpen)
		}
		if version <= old.version {
			return fmt.Errorf("change %s to version %d, have %d: %w", path, version, old.version, ErrVersion)
		}
		// Computed without the lock, so readers are not held up by a large
		// edit; the swap below checks that nobody replaced the buffer since.
		text, err := applyChanges(old.text, changes, enc)
		if err != nil {
			return fmt.Errorf("change %s to version %d: %w", path, version, err)
		}

		w.mu.Lock()
		if w.buffers[key] == old {
			w.buffers[key] = &buffer{text: text, version: version}
			w.mu.Unlock()
			return nil
		}
		w.mu.Unlock()
		// Another Open, Change or Close won the race: judge again against
		// what the editor has now.
	}
}

// applyChanges returns text after changes, or the first error.
func applyChanges(text string, changes []Change, enc edits.Encoding) (string, error) {
	for i, c := range changes {
		if c.Range == nil {
			text = c.Text
			continue
		}
		start, end, err := edits.NewMapper(text).RangeOffsets(*c.Range, enc)
		if err != nil {
			return "", fmt.Errorf("content change %d: %w", i, err)
		}
		if start < 0 || start > end || end > len(text) {
			// Inv: the mapper returns offsets within text; a slice panic here
			// would take the server down, so refuse instead.
			return "", fmt.Errorf("content change %d: offsets [%d, %d) outside text of %d bytes", i, start, end, len(text))
		}
		text = text[:start] + c.Text + text[end:]
	}
	return text, nil
}
