package main

import (
	"encoding/json"
	"io"
	"sync"

	"github.com/agentls/agentls/agent"
)

// jsonEvent is one line of --json output: the event as lsp sends it in
// agentls/event, numbered.
type jsonEvent struct {
	Seq int64 `json:"seq"`
	agent.Event
}

// jsonPrinter prints each event as one line of JSON, and nothing else.
type jsonPrinter struct {
	mu  sync.Mutex
	enc *json.Encoder
	seq int64
}

func newJSONPrinter(w io.Writer) *jsonPrinter {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return &jsonPrinter{enc: enc}
}

func (j *jsonPrinter) event(ev agent.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	j.enc.Encode(jsonEvent{Seq: j.seq, Event: ev})
}
