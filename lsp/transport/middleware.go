package transport

import (
	"context"
	"errors"
	"log/slog"
	"strings"

	"go.lsp.dev/jsonrpc2"
)

// ParamErrors answers params that do not decode with InvalidParams: the
// protocol package reports them as parse errors, though the message itself
// parsed (frames that are not JSON never reach a handler; see frame.go).
func ParamErrors(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := h(ctx, req)
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params for "+req.Method()+": "+err.Error())
		}
		return res, err
	}
}

// Survive keeps notification failures from closing the connection: jsonrpc2
// ends it when a notification handler returns an error. The failure is
// logged.
func Survive(log *slog.Logger, h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		res, err := h(ctx, req)
		if err != nil && !req.IsCall() {
			// "$/" notifications are optional by the spec: ignoring one
			// is no failure.
			if !strings.HasPrefix(req.Method(), "$/") {
				log.Warn("notification failed", "method", req.Method(), "err", err)
			}
			return nil, nil
		}
		return res, err
	}
}

// Recover turns a handler panic into an internal error.
func Recover(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (res any, err error) {
		defer func() {
			if v := recover(); v != nil {
				res, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), v)
			}
		}()
		return h(ctx, req)
	}
}
