package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// RunArgs are the arguments of agentls.run. docs/protocol.md documents them.
type RunArgs struct {
	// Prompt is the task; ${selection}, ${file}, ${diagnostics} and
	// ${instruction} are expanded when the run starts.
	Prompt      string                `json:"prompt"`
	URI         uri.URI               `json:"uri,omitzero"`
	Range       *protocol.Range       `json:"range,omitzero"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics,omitzero"`
	// Action names the code action the command came from (ActionExplain…);
	// an explain run is read-only.
	Action string `json:"action,omitzero"`
	// Ask asks a plugin to prompt the user before executing the command
	// (AskInstruction) and to put the answer in Instruction.
	Ask         string `json:"ask,omitzero"`
	Instruction string `json:"instruction,omitzero"`
	// Title names the run in progress and answers ("Explain selection");
	// "": the prompt's first words.
	Title string `json:"title,omitzero"`
}

// CancelArgs are the arguments of agentls.cancel.
type CancelArgs struct {
	RunID string `json:"runId"`
}

// RunResult is agentls.run's answer.
type RunResult struct {
	RunID string `json:"runId"`
}

var errInvalidParams = jsonrpc2.ErrInvalidParams

func (s *Server) ExecuteCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	switch params.Command {
	case CommandRun:
		var args RunArgs
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
		if strings.TrimSpace(args.Prompt) == "" {
			return nil, fmt.Errorf("%w: %s needs a non-empty \"prompt\"", errInvalidParams, CommandRun)
		}
		id, err := s.startRun(ctx, args, params.WorkDoneToken)
		if err != nil {
			return nil, err
		}
		return encodeResult(RunResult{RunID: id})
	case CommandApprovals:
		return s.approvalsCommand(ctx, params)
	case CommandCancel:
		var args CancelArgs
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
		if !s.runs.cancel(args.RunID) {
			return nil, fmt.Errorf("%w: no running run %q", errInvalidParams, args.RunID)
		}
		return protocol.LSPAny("null"), nil
	}
	return nil, fmt.Errorf("%w: unknown command %q (agentls knows %s, %s)", errInvalidParams, params.Command, CommandRun, CommandCancel)
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
