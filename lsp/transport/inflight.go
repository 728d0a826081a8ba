package transport

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
)

// DefaultInFlight bounds the requests an Inflight lets run at once.
const DefaultInFlight = 256

// CodeRequestFailed is LSP's error code for a request the server could not
// serve though it was valid.
const CodeRequestFailed jsonrpc2.Code = -32803

// Inflight releases requests to run concurrently and keeps notifications
// inline, so notifications are applied strictly in wire order (didChange
// after didChange) while a slow request never holds up document sync.
//
// At most a bound of requests run at once. A request past it is answered at
// once, on the reading goroutine, with a RequestFailed error: a client that
// sends requests without reading the answers then blocks on its own writes
// once the answers fill the pipe, and the server's memory stays bounded
// instead of growing by a goroutine and an answer per request. The reading
// goroutine never waits for a handler, so the answers the server waits for
// (to its own requests) are always read.
type Inflight struct {
	slots chan struct{}
}

// NewInflight returns an Inflight of n slots; n ≤ 0: DefaultInFlight.
func NewInflight(n int) *Inflight {
	if n <= 0 {
		n = DefaultInFlight
	}
	return &Inflight{slots: make(chan struct{}, n)}
}

// Release wraps h: see Inflight.
func (f *Inflight) Release(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if !req.IsCall() {
			return h(ctx, req)
		}
		select {
		case f.slots <- struct{}{}:
		default:
			return nil, jsonrpc2.NewError(CodeRequestFailed,
				fmt.Sprintf("agentls is busy: %d requests are already running; try %s again later", cap(f.slots), req.Method()))
		}
		defer func() { <-f.slots }()
		jsonrpc2.Async(ctx)
		return h(ctx, req)
	}
}
