package lsp

import (
	"context"
	"fmt"
	"sync"

	"go.lsp.dev/protocol"
)

// runs is the registry of a server's running runs.
type runs struct {
	wg sync.WaitGroup // every run goroutine

	mu      sync.Mutex
	closed  bool // wait was called: no new runs
	byID    map[string]*runHandle
	byToken map[string]*runHandle
}

// A runHandle is what the server keeps of a running run, or of a subagent
// run inside one (cancelling that stops only the subagent).
type runHandle struct {
	id     string
	cancel context.CancelFunc
	token  string // progress token key, "" when none
}

func (rs *runs) init() {
	rs.byID = make(map[string]*runHandle)
	rs.byToken = make(map[string]*runHandle)
}

// start registers h and runs f in a goroutine the registry waits for. It
// reports false, and runs nothing, once the registry is closing.
func (rs *runs) start(h *runHandle, f func()) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.closed {
		return false
	}
	rs.byID[h.id] = h
	rs.wg.Go(func() {
		defer rs.remove(h)
		f()
	})
	return true
}

// add registers a handle that some run's goroutine owns (a subagent's);
// the owner removes it.
func (rs *runs) add(h *runHandle) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	rs.byID[h.id] = h
}

func (rs *runs) setToken(h *runHandle, key string) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	h.token = key
	rs.byToken[key] = h
}

func (rs *runs) remove(h *runHandle) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.byID[h.id] == h {
		delete(rs.byID, h.id)
	}
	if h.token != "" && rs.byToken[h.token] == h {
		delete(rs.byToken, h.token)
	}
}

// running reports whether run id is registered (it runs, or is ending).
func (rs *runs) running(id string) bool {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	return rs.byID[id] != nil
}

// cancel cancels a run by id and reports whether it was running.
func (rs *runs) cancel(id string) bool {
	rs.mu.Lock()
	h := rs.byID[id]
	rs.mu.Unlock()
	if h == nil {
		return false
	}
	h.cancel()
	return true
}

// cancelToken cancels the run whose progress token is tok.
func (rs *runs) cancelToken(tok protocol.ProgressToken) bool {
	rs.mu.Lock()
	h := rs.byToken[tokenKey(tok)]
	rs.mu.Unlock()
	if h == nil {
		return false
	}
	h.cancel()
	return true
}

func (rs *runs) cancelAll() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, h := range rs.byID {
		h.cancel()
	}
}

// wait closes the registry and waits for every run.
func (rs *runs) wait() {
	rs.mu.Lock()
	rs.closed = true
	rs.mu.Unlock()
	rs.wg.Wait()
}

// tokenKey is a comparable form of a progress token.
func tokenKey(tok protocol.ProgressToken) string {
	switch t := tok.(type) {
	case protocol.String:
		return "s:" + string(t)
	case protocol.Integer:
		return fmt.Sprintf("i:%d", t)
	}
	return ""
}

func (s *Server) WorkDoneProgressCancel(ctx context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	if !s.runs.cancelToken(params.Token) {
		return fmt.Errorf("cancel: no run has progress token %v", params.Token)
	}
	return nil
}
