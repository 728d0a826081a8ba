package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// Record types of a session file.
const (
	typeHeader  = "session"
	typeRun     = "run"     // a run begins
	typeHistory = "history" // its history changes
	typeChange  = "change"  // the user accepted a change of a file
	typeEnd     = "end"     // the run ends
	typeRevert  = "revert"  // a run is reverted
)

// A record is one line of a session file.
type record struct {
	Type string    `json:"type"`
	Time time.Time `json:"time"`
	// Header.
	Format int    `json:"format,omitempty"`
	ID     string `json:"id,omitempty"`
	Root   string `json:"root,omitempty"`
	Title  string `json:"title,omitempty"`
	// Run is the run the record is about.
	Run     string               `json:"run,omitempty"`
	Prompt  string               `json:"prompt,omitempty"`
	Model   string               `json:"model,omitempty"`
	History *agent.HistoryChange `json:"history,omitempty"`
	Change  *Change              `json:"change,omitempty"`
	End     *agent.RunEnd        `json:"end,omitempty"`
	Usage   *agent.Usage         `json:"usage,omitempty"`
	Revert  *Revert              `json:"revert,omitempty"`
}

// A state is a session file, read.
type state struct {
	info    Info
	history []*genai.Content
	changes map[string][]Change // accepted changes, by run
	// reverted holds, by run, the files a revert changed.
	reverted map[string]map[string]bool
	// notes are what the next run is told of reverts since the last run
	// began.
	notes []string
	runs  map[string]int // run id → index in info.Runs
}

// parse reads a session file. n is the length of its complete records: a
// last line cut short (a crash while it was written) is left out, and a
// writer cuts it off before it appends.
func parse(data []byte) (st *state, n int, err error) {
	st = &state{changes: map[string][]Change{}, reverted: map[string]map[string]bool{}, runs: map[string]int{}}
	for line := 1; n < len(data); line++ {
		end := bytes.IndexByte(data[n:], '\n')
		if end < 0 {
			break // the torn last record
		}
		b := bytes.TrimSpace(data[n : n+end])
		if len(b) == 0 {
			n += end + 1
			continue
		}
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil {
			return nil, 0, fmt.Errorf("%w: line %d: %v", ErrCorrupt, line, err)
		}
		if line == 1 {
			if rec.Type != typeHeader || rec.ID == "" {
				return nil, 0, fmt.Errorf("%w: line 1 is not a session header", ErrCorrupt)
			}
			if rec.Format > Format {
				return nil, 0, fmt.Errorf("%w (format %d; this agentls reads format %d and older)", ErrNewer, rec.Format, Format)
			}
			if rec.Format < 1 {
				return nil, 0, fmt.Errorf("%w: line 1: format %d", ErrCorrupt, rec.Format)
			}
			st.info = Info{ID: rec.ID, Title: rec.Title, Root: rec.Root, Created: rec.Time, Updated: rec.Time, Runs: []RunInfo{}}
			n += end + 1
			continue
		}
		if err := st.apply(rec); err != nil {
			return nil, 0, fmt.Errorf("%w: line %d: %v", ErrCorrupt, line, err)
		}
		n += end + 1
	}
	if st.info.ID == "" {
		return nil, 0, fmt.Errorf("%w: no complete header", ErrCorrupt)
	}
	return st, n, nil
}

// apply adds one record to the state.
func (st *state) apply(rec record) error {
	runs := st.runs
	run := func() (*RunInfo, error) {
		i, ok := runs[rec.Run]
		if !ok {
			return nil, fmt.Errorf("a %s record of run %q, which did not begin", rec.Type, rec.Run)
		}
		return &st.info.Runs[i], nil
	}
	switch rec.Type {
	case typeRun:
		if _, dup := runs[rec.Run]; dup || rec.Run == "" {
			return fmt.Errorf("run %q begins twice", rec.Run)
		}
		runs[rec.Run] = len(st.info.Runs)
		st.info.Runs = append(st.info.Runs, RunInfo{ID: rec.Run, Prompt: rec.Prompt, Model: rec.Model, Started: rec.Time})
		st.notes = nil
	case typeHistory:
		if _, err := run(); err != nil {
			return err
		}
		if rec.History == nil {
			return fmt.Errorf("a history record without history")
		}
		h, ok := rec.History.Apply(slices.Clip(st.history))
		if !ok {
			return fmt.Errorf("a history change keeps %d of %d contents", rec.History.Keep, len(st.history))
		}
		st.history = h
	case typeChange:
		ri, err := run()
		if err != nil {
			return err
		}
		if rec.Change == nil || rec.Change.Path == "" {
			return fmt.Errorf("a change record without a change")
		}
		st.changes[rec.Run] = append(st.changes[rec.Run], *rec.Change)
		ri.Changes++
	case typeEnd:
		ri, err := run()
		if err != nil {
			return err
		}
		if rec.End == nil {
			return fmt.Errorf("an end record without an end")
		}
		ri.End = rec.End
		if rec.Usage != nil {
			ri.Usage = *rec.Usage
			st.info.Usage.Add(*rec.Usage)
		}
	case typeRevert:
		if rec.Revert == nil {
			return fmt.Errorf("a revert record without a revert")
		}
		i, ok := runs[rec.Revert.Run]
		if !ok {
			return fmt.Errorf("a revert of run %q, which is not the session's", rec.Revert.Run)
		}
		done := st.reverted[rec.Revert.Run]
		if done == nil {
			done = map[string]bool{}
			st.reverted[rec.Revert.Run] = done
		}
		for _, f := range rec.Revert.Files {
			if f.Done() {
				done[f.Name] = true
				st.info.Runs[i].Reverted = true
			}
		}
		if note := rec.Revert.Note(); note != "" {
			st.notes = append(st.notes, note)
		}
	default:
		return fmt.Errorf("unknown record type %q", rec.Type)
	}
	if rec.Time.After(st.info.Updated) {
		st.info.Updated = rec.Time
	}
	return nil
}

// encode is one record as a line.
func encode(rec record) ([]byte, error) {
	b, err := json.Marshal(rec)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
