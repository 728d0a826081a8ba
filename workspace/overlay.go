package workspace

import (
	"cmp"
	"errors"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/edits/rope"
)

var (
	// ErrNotOpen reports a change to a document the editor has not opened.
	ErrNotOpen = errors.New("document is not open")
	// ErrVersion reports a change whose version is not above the buffer's.
	ErrVersion = errors.New("document version did not increase")
	// ErrOutOfSync reports a buffer whose text is no longer the editor's: a
	// didChange for it failed, so the editor went on from a text the overlay
	// never had. The editor's whole text (didOpen, or a change without a
	// range) brings it back.
	ErrOutOfSync = errors.New("the editor's buffer is out of sync with agentls")
)

// A Change is one textDocument/didChange content change. A nil Range replaces
// the whole text; otherwise Range is in the positions of the text as left by
// the changes before it in the same notification.
type Change struct {
	Range *protocol.Range
	Text  string
}

// A buffer is the editor's text of one open document. It is a rope, so that
// a change costs the same whatever the document's size; readers that need
// the text as one string get it flattened once per version.
type buffer struct {
	doc     rope.Rope
	version int32
	// unsynced, when set, is the failed change after which doc stopped
	// being the editor's; doc is then the last text known.
	unsynced error

	flatOnce sync.Once
	flat     string // doc as one string, once text has made it
}

// newBuffer is the buffer of doc; text, when not "", is doc's text already
// made, which text then returns without a copy.
func newBuffer(doc rope.Rope, text string, version int32) *buffer {
	b := &buffer{doc: doc, version: version}
	if text != "" {
		b.flatOnce.Do(func() { b.flat = text })
	}
	return b
}

// text returns the buffer's text as one string, made at the first call.
func (b *buffer) text() string {
	b.flatOnce.Do(func() { b.flat = b.doc.String() })
	return b.flat
}

// Open records the editor's text of path (didOpen). Opening an open path
// replaces its buffer, whatever the version. The rope shares text's memory.
func (w *Workspace) Open(path, text string, version int32) {
	b := newBuffer(rope.New(text), text, version)
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
	return b.text(), b.version, true
}

// BufferIs reports whether the editor's buffer of path holds want, and its
// version, without making its text (a change to a large document costs the
// same whatever its size, and so does this).
func (w *Workspace) BufferIs(path, want string) (version int32, open, same bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	b, ok := w.buffers[canonical(w.roots, path)]
	if !ok {
		return 0, false, false
	}
	return b.version, true, b.doc.Equal(want)
}

// Version returns the version of the editor's buffer of path, if path is
// open, without reading its text.
func (w *Workspace) Version(path string) (version int32, ok bool) {
	w.mu.RLock()
	defer w.mu.RUnlock()
	b, ok := w.buffers[canonical(w.roots, path)]
	if !ok {
		return 0, false
	}
	return b.version, true
}

// Change applies the content changes of one didChange notification, in order,
// each against the text the previous ones left, and sets the buffer's version.
// Positions are in enc, the negotiated position encoding.
//
// It fails with ErrNotOpen, with ErrVersion when version is not above the
// buffer's (the buffer is unchanged), when a range does not fit the text, or
// with ErrOutOfSync when the buffer is out of sync and the changes do not
// replace the whole text. After those last two the buffer keeps its text
// and version but is out of sync: the editor applied a change the overlay
// could not, so the editor's text is unknown, and ReadFile refuses to guess
// it until the editor sends its whole text.
func (w *Workspace) Change(path string, version int32, changes []Change, enc lspedit.Encoding) error {
	for {
		w.mu.RLock()
		key := canonical(w.roots, path)
		old := w.buffers[key]
		w.mu.RUnlock()

		if old == nil {
			return fmt.Errorf("change %s: %w", path, ErrNotOpen)
		}
		if version <= old.version {
			// A change that lost a race (or a client's replay): the buffer
			// is newer already.
			return fmt.Errorf("change %s to version %d, have %d: %w", path, version, old.version, ErrVersion)
		}
		// Computed without the lock, so readers are not held up by a large
		// edit; the swap below checks that nobody replaced the buffer since.
		var (
			next *buffer
			err  error
		)
		if old.unsynced != nil {
			next, err = resync(old.doc, changes, enc)
		} else {
			next, err = applyChanges(old.doc, changes, enc)
		}
		if err != nil {
			err = fmt.Errorf("change %s to version %d: %w", path, version, err)
			next = &buffer{doc: old.doc, unsynced: cmp.Or(old.unsynced, err)}
			next.version = old.version
		} else {
			next.version = version
		}

		w.mu.Lock()
		if w.buffers[key] == old {
			w.buffers[key] = next
			w.mu.Unlock()
			return err
		}
		w.mu.Unlock()
		// Another Open, Change or Close won the race: judge again against
		// what the editor has now.
	}
}

// resync applies the changes of an out-of-sync buffer from its last whole
// text on; without one, the editor's text stays unknown.
func resync(doc rope.Rope, changes []Change, enc lspedit.Encoding) (*buffer, error) {
	for i := len(changes) - 1; i >= 0; i-- {
		if changes[i].Range == nil {
			return applyChanges(doc, changes[i:], enc)
		}
	}
	return nil, ErrOutOfSync
}

// applyChanges returns the buffer of doc after changes, or the first error.
// A change costs O(log n) plus its own length: the mapper walks the rope
// to the lines it names, and the rope copies one path of its tree.
func applyChanges(doc rope.Rope, changes []Change, enc lspedit.Encoding) (*buffer, error) {
	whole := "" // the text of the last change, when it replaced everything
	for i, c := range changes {
		if c.Range == nil {
			doc, whole = rope.New(c.Text), c.Text
			continue
		}
		whole = ""
		start, end, err := lspedit.NewLinesMapper(doc).RangeOffsets(*c.Range, enc)
		if err != nil {
			return nil, fmt.Errorf("content change %d: %w", i, err)
		}
		if start < 0 || start > end || end > doc.Len() {
			// Inv: the mapper returns offsets within the text; a panic in
			// Replace would take the server down, so refuse instead.
			return nil, fmt.Errorf("content change %d: offsets [%d, %d) outside text of %d bytes", i, start, end, doc.Len())
		}
		doc = doc.Replace(start, end, c.Text)
	}
	return newBuffer(doc, whole, 0), nil
}
