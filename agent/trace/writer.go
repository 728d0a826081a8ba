package trace

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agentls/agentls/agent"
)

// DefaultMaxOutput caps a tool result's output in a trace.
const DefaultMaxOutput = 64 << 10

// Options configures a Writer.
type Options struct {
	// Secrets are values that must never reach the trace, such as the
	// model's API key and [SecretValues] of the environment; each is
	// replaced by [Redacted] wherever it appears.
	Secrets []string
	// MaxOutput caps a tool result's output; 0: DefaultMaxOutput.
	MaxOutput int
	Now       func() time.Time // nil: time.Now
}

// A Writer writes one run's trace. It is safe for concurrent use: model
// calls, policy checks and events arrive from the run's goroutines.
type Writer struct {
	opts   Options
	redact *redactor
	closer io.Closer

	mu      sync.Mutex
	w       io.Writer
	err     error               // the first write error
	seq     map[string]int      // model calls per prompt id
	pending map[string][]callID // tool calls not yet policy-checked, by agent, tool and arguments
}

// callID names one tool call of one run.
type callID struct{ run, call string }

// NewWriter writes a trace to w.
func NewWriter(w io.Writer, opts Options) *Writer {
	if opts.MaxOutput <= 0 {
		opts.MaxOutput = DefaultMaxOutput
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Writer{opts: opts, redact: newRedactor(opts.Secrets), w: w,
		seq: make(map[string]int), pending: make(map[string][]callID)}
}

// Create writes a trace to the file at path, readable by the user alone
// (traces hold code and commands), creating its folder and replacing the
// file if there is one.
func Create(path string, opts Options) (*Writer, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	w := NewWriter(f, opts)
	w.closer = f
	return w, nil
}

// Close closes the file of a Writer made by Create, and reports the first
// error of any write.
func (w *Writer) Close() error {
	var err error
	if w.closer != nil {
		err = w.closer.Close()
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	return err
}

// write writes one record as one line. The line goes to the file in one
// write, unbuffered: a crash loses at most the line being written.
func (w *Writer) write(rec Record) {
	b, err := json.Marshal(rec)
	if err != nil {
		b, _ = json.Marshal(Record{Type: TypeError, Error: fmt.Sprintf("a %s record could not be written: %v", rec.Type, err)})
	}
	b = w.redact.bytes(b)
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(append(b, '\n')); err != nil && w.err == nil {
		w.err = fmt.Errorf("trace: %w", err)
	}
}

// Event records one event of the run's stream. Thought, text and usage
// events are left out (the model_call records hold the full answers), and a
// subagent's events are recorded as themselves, not wrapped in
// subagent_activity.
func (w *Writer) Event(ev agent.Event) {
	switch ev.Type {
	case agent.EventSubagentActivity:
		if ev.Inner != nil {
			w.Event(*ev.Inner)
		}
		return
	case agent.EventThought, agent.EventText, agent.EventUsage:
		return
	case agent.EventToolCall:
		if ev.Call != nil {
			w.expect(ev)
		}
	case agent.EventToolResult:
		if ev.Result != nil {
			res := *ev.Result
			res.Output = capText(res.Output, w.opts.MaxOutput)
			ev.Result = &res
		}
	}
	w.write(Record{Type: TypeEvent, Event: &ev})
}

// expect notes a tool call that a policy check will be about.
func (w *Writer) expect(ev agent.Event) {
	key := checkKey(ev.Agent, ev.Call.Name, ev.Call.Args)
	w.mu.Lock()
	defer w.mu.Unlock()
	w.pending[key] = append(w.pending[key], callID{ev.RunID, ev.Call.ID})
}

// claim returns the earliest unchecked tool call a policy check is about.
// Calls with equal agent, tool and arguments are told apart by their order
// alone, which is all a check can tell anyway.
func (w *Writer) claim(agentName, tool string, args json.RawMessage) (callID, bool) {
	key := checkKey(agentName, tool, args)
	w.mu.Lock()
	defer w.mu.Unlock()
	q := w.pending[key]
	if len(q) == 0 {
		return callID{}, false
	}
	if len(q) == 1 {
		delete(w.pending, key)
	} else {
		w.pending[key] = q[1:]
	}
	return q[0], true
}

func checkKey(agentName, tool string, args json.RawMessage) string {
	return agentName + "\x00" + tool + "\x00" + string(args)
}

// nextSeq numbers the model calls of a prompt id.
func (w *Writer) nextSeq(promptID string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.seq[promptID]++
	return w.seq[promptID]
}

// capText cuts s to at most n bytes, on a rune boundary, saying how much
// was left out.
func capText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[%d more bytes not recorded]", len(s)-cut)
}

// NewRunID returns a fresh run id for an agent: "<name>-<8 hex digits>".
func NewRunID(name string) string {
	if name == "" {
		name = "main"
	}
	b := make([]byte, 4)
	rand.Read(b)
	return name + "-" + hex.EncodeToString(b)
}
