package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is go.lsp.dev/protocol's wire codec (unexported there), for
// jsonrpc2.WithCodec: protocol types go through protocol.Marshal, raw
// messages pass through untouched. The server and the test editor use it.
type Codec struct{}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	if r, ok := v.(jsonrpc2.RawMessage); ok {
		if r == nil {
			return []byte("null"), nil
		}
		return r, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	// protocol.Unmarshal may leave strings aliasing b for some destinations
	// (slices of unions), and jsonrpc2 reuses b's buffer: decode a copy.
	return protocol.Unmarshal(slices.Clone(b), v)
}

// handler builds the server's handler chain.
//
// Notifications run inline on the read loop, so they are applied strictly in
// wire order (didChange after didChange); requests are released to run
// concurrently, so a slow request never holds up document sync. An error or a
// panic in a notification handler is logged and never reaches jsonrpc2,
// which would otherwise close the connection.
func (s *Server) handler() jsonrpc2.Handler {
	inner := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	return s.survive(protocol.CancelHandler(s.ordered(s.gate(recovering(paramErrors(s.documentSync(inner)))))))
}

// paramErrors answers params that do not decode with InvalidParams: the
// protocol package reports them as parse errors, though the message itself
// parsed (frames that are not JSON never reach a handler; see frame.go).
func paramErrors(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := h(ctx, req)
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params for "+req.Method()+": "+err.Error())
		}
		return res, err
	}
}

// ordered releases requests to run concurrently and keeps notifications
// inline.
func (s *Server) ordered(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		if req.IsCall() {
			jsonrpc2.Async(ctx)
		}
		return h(ctx, req)
	}
}

// survive keeps notification failures from closing the connection.
func (s *Server) survive(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := h(ctx, req)
		if err != nil && !req.IsCall() {
			// "$/" notifications are optional by the spec: ignoring one
			// is no failure.
			if !strings.HasPrefix(req.Method(), "$/") {
				s.log.Warn("notification failed", "method", req.Method(), "err", err)
			}
			return nil, nil
		}
		return res, err
	}
}

// recovering turns a handler panic into an internal error.
func recovering(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), v)
			}
		}()
		return h(ctx, req)
	}
}

// gate enforces the lifecycle: before initialize only initialize (and exit)
// are served; after shutdown only exit.
func (s *Server) gate(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		st := s.lifecycle()
		switch {
		case method == protocol.MethodExit, method == protocol.MethodInitialize && st == stateNew:
		case st == stateNew:
			if req.IsCall() {
				return nil, jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "server not initialized: send initialize first")
			}
			return nil, nil
		case method == protocol.MethodInitialize:
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, "initialize was already received")
		case st == stateShutdown:
			if req.IsCall() {
				return nil, jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("%s after shutdown: only exit is allowed", method))
			}
			return nil, nil
		}
		return h(ctx, req)
	}
}
