package lsp

import (
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/workspace"
)

// appliedEdits are the files the editor answered applied:true for, but
// whose new text it has not reported yet: Emacs eglot sends didChange from
// an idle timer, often seconds later, or just before its next request.
// applied:true is the client's word, so until the client reports the file
// (didChange, didClose, or a didOpen with the edited text), the server
// takes it: the file reads as the edit left it, counts as unsaved when that
// is not the disk, and a later edit to it goes out without a version (the
// client's is unknown).
type appliedEdits struct {
	mu sync.Mutex
	// Inv: keys are canonical paths (as tools resolve them).
	texts map[string]string
}

// set records that the editor holds text for path.
func (a *appliedEdits) set(path, text string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.texts == nil {
		a.texts = make(map[string]string)
	}
	a.texts[path] = text
}

// text returns the text the editor said it holds for path, if it has not
// reported the file since.
func (a *appliedEdits) text(path string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	t, ok := a.texts[filepath.Clean(path)]
	return t, ok
}

// all returns a copy of the recorded texts by path.
func (a *appliedEdits) all() map[string]string {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := make(map[string]string, len(a.texts))
	for p, t := range a.texts {
		out[p] = t
	}
	return out
}

// reported forgets path once the client reports it (path as the client
// names it): after a didChange or didClose the overlay is the client's
// word again; after a didOpen only when it holds the edited text (a file
// the client opened to edit it is opened before it is edited).
func (a *appliedEdits) reported(ws *workspace.Workspace, path string, opened bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for p, t := range a.texts {
		if p != filepath.Clean(path) && ws.ClientPath(p) != filepath.Clean(path) {
			continue
		}
		if opened {
			if text, _, ok := ws.Buffer(p); !ok || text != t {
				continue
			}
		}
		delete(a.texts, p)
	}
}
