package lsp

import (
	"context"
	"sync"
	"time"

	"github.com/agentls/agentls/workspace"
)

// docWatch tells waiters that some document changed (didOpen, didChange,
// didClose), so a proposal can wait for the editor to report the text it
// applied.
type docWatch struct {
	mu sync.Mutex
	// Inv: changed is open; notify closes it and puts a new one in its place.
	changed chan struct{}
}

func (w *docWatch) init() { w.changed = make(chan struct{}) }

// notify wakes every waiter.
func (w *docWatch) notify() {
	w.mu.Lock()
	defer w.mu.Unlock()
	close(w.changed)
	w.changed = make(chan struct{})
}

// docReported is called for every didOpen (opened), didChange and
// didClose of path: edits the client answered applied are its word no
// longer once it reports the file, and waiters wake.
func (s *Server) docReported(path string, opened bool) {
	if ws := s.workspace(); ws != nil {
		s.applied.reported(ws, path, opened)
	}
	s.docs.notify()
}

// next returns a channel closed at the next change.
func (w *docWatch) next() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.changed
}

// settle waits until the editor's buffer of path holds want, or timeout
// passes, or ctx ends. It returns the buffer's text and version and whether
// the buffer is open; settled reports that the text is want.
func (s *Server) settle(ctx context.Context, ws *workspace.Workspace, path, want string, timeout time.Duration) (text string, version int32, open, settled bool) {
	expired := s.after(timeout)
	for {
		changed := s.docs.next()
		// Keystrokes wake this loop: compare without making the text.
		if v, isOpen, same := ws.BufferIs(path, want); same {
			return want, v, isOpen, true
		}
		select {
		case <-changed:
		case <-expired:
			text, version, open = ws.Buffer(path)
			return text, version, open, false
		case <-ctx.Done():
			text, version, open = ws.Buffer(path)
			return text, version, open, false
		}
	}
}
