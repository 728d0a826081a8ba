// Package record records a run's model calls as JSON Lines and replays them:
// a Recorder is a Model layer that writes every call's response, and a
// Replayer is a Model that answers from such a file without any network.
package record

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"slices"
	"strings"
	"sync"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// Entry types of a session file.
const (
	TypeHeader    = "header"
	TypeModelCall = "model_call"
)

// An Entry is one line of a session file.
type Entry struct {
	Type string `json:"type"`

	// header
	Task    string `json:"task,omitempty"`
	Model   string `json:"model,omitempty"`
	Version string `json:"version,omitempty"`

	// model_call
	Call   int                              `json:"call,omitempty"` // 1-based
	Asked  []string                         `json:"asked,omitempty"`
	Chunks []*genai.GenerateContentResponse `json:"chunks,omitempty"`
	Error  string                           `json:"error,omitempty"`
}

// A Recorder is a Model that passes calls to another Model and writes each
// call's answer to w, one line per call, flushed as written.
type Recorder struct {
	next agent.Model

	mu    sync.Mutex
	w     io.Writer
	calls int
}

// NewRecorder records next's answers to w, after a header line.
func NewRecorder(next agent.Model, w io.Writer, header Entry) (*Recorder, error) {
	header.Type = TypeHeader
	r := &Recorder{next: next, w: w}
	if err := r.write(header); err != nil {
		return nil, err
	}
	return r, nil
}

func (r *Recorder) write(e Entry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	_, err = r.w.Write(append(b, '\n'))
	return err
}

// Generate implements agent.Model.
func (r *Recorder) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		r.mu.Lock()
		r.calls++
		e := Entry{Type: TypeModelCall, Call: r.calls, Model: req.Model, Asked: Asked(req)}
		r.mu.Unlock()
		defer func() { r.write(e) }()
		for resp, err := range r.next.Generate(ctx, req) {
			if err != nil {
				e.Error = err.Error()
				yield(nil, err)
				return
			}
			// The HTTP envelope (headers, dates) is transport, not the answer.
			saved := *resp
			saved.SDKHTTPResponse = nil
			e.Chunks = append(e.Chunks, &saved)
			if !yield(resp, nil) {
				return
			}
		}
	}
}

// Asked summarizes what a request answers: the function responses (tool
// name and outcome) of its last content, or "user" for a user message. A
// replay compares it to tell when the harness asks something the recording
// did not.
func Asked(req *agent.Request) []string {
	if len(req.Contents) == 0 {
		return nil
	}
	var out []string
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		switch {
		case p.FunctionResponse != nil:
			status := "ok"
			if _, isErr := p.FunctionResponse.Response["error"]; isErr {
				status = "error"
			}
			out = append(out, p.FunctionResponse.Name+":"+status)
		case p.Text != "":
			out = append(out, "user")
		}
	}
	return out
}

// A Replayer is a Model that answers each call with the next recorded one.
type Replayer struct {
	Header Entry

	mu    sync.Mutex
	calls []Entry
	next  int
}

// ErrDiverged reports that the harness asked something the recording did not.
var ErrDiverged = errors.New("replay diverged from the recording")

// Load reads a session file.
func Load(path string) (*Replayer, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads a session from r.
func Read(r io.Reader) (*Replayer, error) {
	rp := &Replayer{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64*1024), 256<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var e Entry
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			return nil, fmt.Errorf("session line %d: %w", line, err)
		}
		switch e.Type {
		case TypeHeader:
			rp.Header = e
		case TypeModelCall:
			rp.calls = append(rp.calls, e)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(rp.calls) == 0 {
		return nil, errors.New("session has no model calls")
	}
	return rp, nil
}

// Generate implements agent.Model.
func (rp *Replayer) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		rp.mu.Lock()
		if rp.next >= len(rp.calls) {
			rp.mu.Unlock()
			yield(nil, fmt.Errorf("%w: call %d was not recorded (the recording has %d)", ErrDiverged, rp.next+1, len(rp.calls)))
			return
		}
		e := rp.calls[rp.next]
		rp.next++
		rp.mu.Unlock()
		if got := Asked(req); !slices.Equal(got, e.Asked) {
			yield(nil, fmt.Errorf("%w at call %d: the recording answered %v, the harness now asks %v", ErrDiverged, e.Call, e.Asked, got))
			return
		}
		for _, c := range e.Chunks {
			if err := ctx.Err(); err != nil {
				yield(nil, err)
				return
			}
			if !yield(c, nil) {
				return
			}
		}
		if e.Error != "" {
			yield(nil, errors.New(e.Error))
		}
	}
}
