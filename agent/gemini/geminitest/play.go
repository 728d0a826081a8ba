package geminitest

import (
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"time"
)

// play answers one generate request with turn t.
func (s *Server) play(w http.ResponseWriter, r *http.Request, req Request, t Turn, id string) {
	if t.Check != nil {
		if err := t.Check(req); err != nil {
			s.reject(w, http.StatusBadRequest, err)
			return
		}
	}
	if !s.wait(w, r, t.Delay) {
		return
	}
	if t.Status != 0 {
		if t.RetryAfter != "" {
			w.Header().Set("Retry-After", t.RetryAfter)
		}
		writeError(w, t.Status, t.ErrMessage, t.RetryAfter, t.ErrDetails)
		return
	}
	if req.Stream {
		s.stream(w, r, req, t, id)
		return
	}
	s.unary(w, req, t, id)
}

func (s *Server) stream(w http.ResponseWriter, r *http.Request, req Request, t Turn, id string) {
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	if rc.Flush() != nil {
		return
	}
	for i, c := range t.chunksFor(req) {
		if t.CutAfter > 0 && i >= t.CutAfter {
			break
		}
		if i > 0 && !s.wait(w, r, t.ChunkDelay) {
			return
		}
		data := []byte(c.Raw)
		if c.Raw == "" {
			data, _ = json.Marshal(c.wire(req.Model, id))
		}
		if !writeEvent(w, rc, data) {
			return
		}
	}
	switch {
	case t.CutAfter > 0:
		cut(rc)
	case t.Malformed:
		writeEvent(w, rc, []byte(malformed))
	case t.MidStreamError > 0:
		writeEvent(w, rc, errorJSON(t.MidStreamError, t.ErrMessage, "", t.ErrDetails))
	}
}

// malformed is a data payload that is not JSON.
const malformed = `{"candidates": [{"content": {"parts": [{"text": "unterminated`

func (s *Server) unary(w http.ResponseWriter, req Request, t Turn, id string) {
	if t.MidStreamError > 0 {
		writeError(w, t.MidStreamError, t.ErrMessage, "", t.ErrDetails)
		return
	}
	chunks := t.chunksFor(req)
	var body []byte
	switch {
	case t.Malformed:
		body = []byte(malformed)
	case len(chunks) == 1 && chunks[0].Raw != "":
		body = []byte(chunks[0].Raw)
	default:
		body, _ = json.Marshal(merge(chunks, req.Model, id))
	}
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	if t.CutAfter > 0 {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body[:len(body)/2])
		cut(http.NewResponseController(w))
		return
	}
	w.Write(body)
}

// writeEvent writes one SSE event with a single Write and flushes it, so
// that each event reaches the client as the real server sends it.
func writeEvent(w io.Writer, rc *http.ResponseController, data []byte) bool {
	ev := make([]byte, 0, len(data)+8)
	ev = append(ev, "data: "...)
	ev = append(ev, data...)
	ev = append(ev, "\n\n"...)
	if _, err := w.Write(ev); err != nil {
		return false
	}
	return rc.Flush() == nil
}

// cut closes the connection without ending the response: the client sees
// an unexpected EOF.
func cut(rc *http.ResponseController) {
	conn, _, err := rc.Hijack()
	if err == nil {
		conn.Close()
	}
}

func writeError(w http.ResponseWriter, code int, msg, retryAfter string, details []map[string]any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(code)
	w.Write(errorJSON(code, msg, retryAfter, details))
}

// wait waits d, or less when the client goes away or the server closes.
// When the server closes, the connection is cut, so that the client sees a
// failure rather than an empty answer.
func (s *Server) wait(w http.ResponseWriter, r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return r.Context().Err() == nil
	}
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		return false
	case <-s.done:
		cut(http.NewResponseController(w))
		return false
	}
}
