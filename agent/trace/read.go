package trace

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agentls/agentls/agent"
)

// A Trace is a trace file, read.
type Trace struct {
	Header Header
	Calls  []ModelCall
	// Events are the recorded events, a subagent's among them, in order.
	Events []agent.Event
	Policy []PolicyCheck
	Errors []string
	// Torn reports that the last line was cut short: the writer stopped
	// mid-record (a crash). The records before it are complete.
	Torn bool
}

// Load reads the trace file at path.
func Load(path string) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// Read reads a trace.
func Read(r io.Reader) (*Trace, error) {
	t := &Trace{}
	br := bufio.NewReader(r)
	header := false
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		last := errors.Is(err, io.EOF)
		if b = bytes.TrimSpace(b); len(b) > 0 {
			var rec Record
			if jerr := json.Unmarshal(b, &rec); jerr != nil {
				if !last {
					return nil, fmt.Errorf("line %d: %w", line, jerr)
				}
				t.Torn = true
				break
			}
			switch rec.Type {
			case TypeHeader:
				if rec.Header != nil {
					t.Header, header = *rec.Header, true
				}
			case TypeModelCall:
				if rec.Call != nil {
					t.Calls = append(t.Calls, *rec.Call)
				}
			case TypeEvent:
				if rec.Event != nil {
					t.Events = append(t.Events, *rec.Event)
				}
			case TypePolicy:
				if rec.Policy != nil {
					t.Policy = append(t.Policy, *rec.Policy)
				}
			case TypeError:
				t.Errors = append(t.Errors, rec.Error)
			}
		}
		if last {
			break
		}
	}
	if !header {
		return nil, errors.New("not a trace: no header record")
	}
	return t, nil
}

// End returns the main run's run_end event, or nil when the trace has none
// (the run did not finish: a crash, or a trace still being written).
func (t *Trace) End() *agent.Event {
	for i := len(t.Events) - 1; i >= 0; i-- {
		if ev := &t.Events[i]; ev.Type == agent.EventRunEnd && ev.RunID == t.Header.RunID {
			return ev
		}
	}
	return nil
}
