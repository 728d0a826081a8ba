package lsp

import (
	"context"
	"fmt"

	"github.com/agentls/agentls/lsp/transport"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// handler builds the server's handler chain.
//
// Notifications run inline on the read loop, so they are applied strictly in
// wire order (didChange after didChange); requests are released to run
// concurrently, so a slow request never holds up document sync. An error or a
// panic in a notification handler is logged and never reaches jsonrpc2,
// which would otherwise close the connection.
func (s *Server) handler() jsonrpc2.Handler {
	inner := protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)
	return transport.Survive(s.log, protocol.CancelHandler(s.inflight.Release(s.gate(transport.Recover(transport.ParamErrors(s.documentSync(inner)))))))
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
