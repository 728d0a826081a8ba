package session

import (
	"fmt"
	"slices"
	"sync"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// A Writer holds a session for one run or one revert: it reads what the
// session holds and writes what happens, a record at a time. Its methods
// are safe for concurrent use (a run's changes come from its tools'
// goroutines). Close releases the session.
type Writer struct {
	s      *Store
	id     string
	holder string
	path   string
	h      handle

	mu     sync.Mutex
	st     *state
	run    string // the run begun, "" before BeginRun
	err    error  // the first failed write
	closed bool
}

// ID is the session's id.
func (w *Writer) ID() string { return w.id }

// Path is the session's file ("" in memory).
func (w *Writer) Path() string {
	if !w.s.Persistent() {
		return ""
	}
	return w.path
}

// Info is the session as it is now.
func (w *Writer) Info() Info {
	w.mu.Lock()
	defer w.mu.Unlock()
	info := w.st.info
	info.Runs = slices.Clone(info.Runs)
	info.Busy = w.holder
	return info
}

// History is the session's history, as its last run left it.
func (w *Writer) History() []*genai.Content {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clip(w.st.history)
}

// Notes is what the next run's model must be told of what happened since
// the last run began (reverts).
func (w *Writer) Notes() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.st.notes)
}

// write adds one record to the state and appends it to the file. The
// first failure is kept (Err), and nothing is written after it: a session
// that misses a record would lie about what happened.
func (w *Writer) write(rec record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return fmt.Errorf("session %s: written after Close", w.id)
	}
	if w.err != nil {
		return w.err
	}
	rec.Time = w.s.now()
	line, err := encode(rec)
	if err == nil {
		// Checked first: a record the file could not be read back with
		// is never written.
		err = w.st.apply(rec)
	}
	if err == nil {
		err = w.h.write(line)
	}
	if err != nil {
		w.err = fmt.Errorf("session %s: %w", w.id, err)
	}
	return w.err
}

// Err is the first write that failed, or nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// BeginRun records that run runID begins, with its prompt and model.
func (w *Writer) BeginRun(runID, prompt, model string) error {
	if err := w.write(record{Type: typeRun, Run: runID, Prompt: prompt, Model: model}); err != nil {
		return err
	}
	w.mu.Lock()
	w.run = runID
	w.mu.Unlock()
	return nil
}

func (w *Writer) current() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.run
}

// SaveHistory records a change of the run's history (agent.Config's
// SaveHistory).
func (w *Writer) SaveHistory(c agent.HistoryChange) {
	w.write(record{Type: typeHistory, Run: w.current(), History: &c})
}

// Change records a change of a file the user accepted in the run.
func (w *Writer) Change(c Change) {
	w.write(record{Type: typeChange, Run: w.current(), Change: &c})
}

// EndRun records how the run ended and what it used.
func (w *Writer) EndRun(end agent.RunEnd, usage agent.Usage) error {
	return w.write(record{Type: typeEnd, Run: w.current(), End: &end, Usage: &usage})
}

// Revertable returns the changes of run runID a revert would undo, in the
// order they were made: those the user accepted, less the files a revert
// already put back.
func (w *Writer) Revertable(runID string) ([]Change, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, ok := w.st.runs[runID]; !ok {
		return nil, fmt.Errorf("%w: run %q is not in session %s", ErrNotFound, runID, w.id)
	}
	all := w.st.changes[runID]
	if len(all) == 0 {
		return nil, fmt.Errorf("%w: run %s changed no file (it proposed none, or every change it proposed was rejected)", ErrNothingToRevert, runID)
	}
	done := w.st.reverted[runID]
	var out []Change
	for _, c := range all {
		if !done[c.Name] {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: the changes of run %s were reverted already", ErrNothingToRevert, runID)
	}
	return out, nil
}

// Reverted records a revert of one of the session's runs. The session's
// next run is told of it (see [Revert.Note]).
func (w *Writer) Reverted(rv Revert) error {
	return w.write(record{Type: typeRevert, Revert: &rv})
}

// Close releases the session.
func (w *Writer) Close() error {
	w.mu.Lock()
	if w.closed {
		w.mu.Unlock()
		return nil
	}
	w.closed = true
	err := w.h.close()
	w.mu.Unlock()
	w.s.release(w.id)
	return err
}
