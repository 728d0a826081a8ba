package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

var errInvalidParams = jsonrpc2.ErrInvalidParams

func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case contract.CommandRun:
		var args contract.RunArgs
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
		if strings.TrimSpace(args.Prompt) == "" {
			return nil, fmt.Errorf("%w: %s needs a non-empty \"prompt\"", errInvalidParams, contract.CommandRun)
		}
		res, err := s.startRun(ctx, args, params.WorkDoneToken)
		if err != nil {
			return nil, err
		}
		return encodeResult(res)
	case contract.CommandApprovals:
		return s.approvalsCommand(ctx, params)
	case contract.CommandSessions:
		return s.sessionsCommand(ctx, params)
	case contract.CommandRevert:
		return s.revertCommand(ctx, params)
	case contract.CommandCancel:
		var args contract.CancelArgs
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
		if !s.runs.cancel(args.RunID) {
			return nil, fmt.Errorf("%w: no running run %q", errInvalidParams, args.RunID)
		}
		return protocol.LSPAny("null"), nil
	}
	return nil, fmt.Errorf("%w: unknown command %q (agentls knows %s)", errInvalidParams, params.Command, strings.Join(contract.Commands, ", "))
}

// commandArg decodes a command's single object argument.
func commandArg(params *protocol.ExecuteCommandParams, v any) error {
	if len(params.Arguments) != 1 {
		return fmt.Errorf("%w: %s takes one object argument, got %d arguments", errInvalidParams, params.Command, len(params.Arguments))
	}
	if err := protocol.Unmarshal(params.Arguments[0], v); err != nil {
		return fmt.Errorf("%w: %s: %v", errInvalidParams, params.Command, err)
	}
	return nil
}

func encodeResult(v any) (protocol.LSPAny, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return protocol.LSPAny(b), nil
}
