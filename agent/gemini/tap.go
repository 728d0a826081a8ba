package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"

	"google.golang.org/genai"
)

// On the Gemini API backend, genai (v1.77.0) drops a candidate's
// finishMessage when it converts the API's answer to its types (it keeps it
// on Vertex AI). The message is what the user and the model must hear when
// a filter withheld an answer, so the adapter reads it from the raw stream:
// a transport layer watches the bytes the SDK reads, and Generate puts the
// message back on the typed chunk that carries the finish reason.

// notesKey keys a call's notes in the context of its HTTP request.
type notesKey struct{}

// notes holds what one call's raw stream said that the typed response
// leaves out.
type notes struct {
	mu     sync.Mutex
	finish map[int32]string // candidate index → finishMessage
}

// fill puts the finish messages read so far on resp's candidates that have
// a finish reason and no message.
func (n *notes) fill(resp *genai.GenerateContentResponse) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, c := range resp.Candidates {
		if c != nil && c.FinishReason != "" && c.FinishMessage == "" {
			c.FinishMessage = n.finish[c.Index]
		}
	}
}

// read notes the finish messages of one SSE event.
func (n *notes) read(event []byte) {
	if !bytes.Contains(event, []byte(`"finishMessage"`)) {
		return // most events: no need to decode them twice
	}
	for line := range bytes.SplitSeq(event, []byte("\n")) {
		data, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:"))
		if !ok {
			continue
		}
		var ev struct {
			Candidates []struct {
				Index         int32  `json:"index"`
				FinishMessage string `json:"finishMessage"`
			} `json:"candidates"`
		}
		if json.Unmarshal(data, &ev) != nil {
			continue // the SDK reports what it cannot read
		}
		n.mu.Lock()
		for _, c := range ev.Candidates {
			if c.FinishMessage != "" {
				if n.finish == nil {
					n.finish = make(map[int32]string)
				}
				n.finish[c.Index] = c.FinishMessage
			}
		}
		n.mu.Unlock()
	}
}

// withNotes returns ctx carrying n for the tap.
func withNotes(ctx context.Context, n *notes) context.Context {
	return context.WithValue(ctx, notesKey{}, n)
}

// tapClient returns a copy of c (nil: a plain client) whose transport
// feeds the notes of each request's context.
func tapClient(c *http.Client) *http.Client {
	var out http.Client
	if c != nil {
		out = *c
	}
	next := out.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	out.Transport = tap{next: next}
	return &out
}

// tap is an http.RoundTripper that lets a call's notes watch the body of
// its successful responses.
type tap struct{ next http.RoundTripper }

func (t tap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || resp.StatusCode != http.StatusOK {
		return resp, err
	}
	if n, ok := req.Context().Value(notesKey{}).(*notes); ok {
		resp.Body = &eventReader{body: resp.Body, notes: n}
	}
	return resp, nil
}

// eventReader passes a body through, splitting it into SSE events (as the
// SDK does, on a blank line) for its notes.
type eventReader struct {
	body  io.ReadCloser
	notes *notes
	buf   []byte // the start of an event not yet complete
}

func (r *eventReader) Read(p []byte) (int, error) {
	n, err := r.body.Read(p)
	if n > 0 {
		r.buf = append(r.buf, p[:n]...)
		r.split()
	}
	if err == io.EOF && len(r.buf) > 0 {
		r.notes.read(r.buf) // a last event without its blank line
		r.buf = nil
	}
	return n, err
}

func (r *eventReader) split() {
	rest := r.buf
	for {
		i, sep := bytes.Index(rest, []byte("\n\n")), 2
		if j := bytes.Index(rest, []byte("\r\n\r\n")); j >= 0 && (i < 0 || j < i) {
			i, sep = j, 4
		}
		if i < 0 {
			break
		}
		r.notes.read(rest[:i])
		rest = rest[i+sep:]
	}
	r.buf = append(r.buf[:0], rest...)
}

func (r *eventReader) Close() error { return r.body.Close() }
