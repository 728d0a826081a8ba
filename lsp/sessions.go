package lsp

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// sessionsCommand lists the workspace's sessions, or deletes one. With no
// argument it shows the list to the user too (a client without a plugin
// shows nothing of the answer).
func (s *Server) sessionsCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	var args contract.SessionsArgs
	if len(params.Arguments) > 0 {
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
	}
	ws := s.workspace()
	switch args.Action {
	case "", contract.SessionsList:
	case contract.SessionsDelete:
		root, err := s.sessionRoot(ws, args.SessionID)
		if err == nil {
			err = s.host.Sessions.Delete(root, args.SessionID)
		}
		if err != nil {
			return nil, sessionError(contract.CommandSessions, err)
		}
	default:
		return nil, fmt.Errorf("%w: %s: action %q is not one of list, delete", errInvalidParams, contract.CommandSessions, args.Action)
	}
	infos, problems, err := s.host.Sessions.List(ws.Roots()...)
	if err != nil {
		return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "agentls: sessions: "+err.Error())
	}
	res := contract.SessionsResult{Sessions: infos, Persistent: s.host.Sessions.Persistent()}
	if res.Sessions == nil {
		res.Sessions = []session.Info{}
	}
	for i := range res.Sessions {
		if res.Sessions[i].Runs == nil {
			res.Sessions[i].Runs = []session.RunInfo{}
		}
	}
	for _, p := range problems {
		res.Problems = append(res.Problems, p.Error())
	}
	if len(params.Arguments) == 0 {
		s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: sessionsMessage(res)})
	}
	return encodeResult(res)
}

// sessionsMessage is the list for a person.
func sessionsMessage(res contract.SessionsResult) string {
	if len(res.Sessions) == 0 && len(res.Problems) == 0 {
		return "agentls: no sessions in this workspace yet"
	}
	var b strings.Builder
	b.WriteString("agentls sessions:")
	for _, si := range res.Sessions {
		fmt.Fprintf(&b, "\n%s  %s  %s, %s — %s", si.ID, si.Updated.Local().Format("2006-01-02 15:04"), countFiles(len(si.Runs), "run"), usageLine(si.Usage), shorten(si.Title, 60))
	}
	for _, p := range res.Problems {
		b.WriteString("\n" + p)
	}
	return b.String()
}

// sessionRoot finds the workspace folder session id belongs to.
func (s *Server) sessionRoot(ws *workspace.Workspace, id string) (string, error) {
	var first error
	for _, root := range ws.Roots() {
		_, err := s.host.Sessions.Get(root, id)
		if err == nil || !errors.Is(err, session.ErrNotFound) {
			return root, err
		}
		if first == nil {
			first = err
		}
	}
	return "", first
}

// openSession holds the session a run of spec belongs to: the one its
// arguments continue, or a new one. The run works in the session's
// workspace folder.
func (s *Server) openSession(spec *runSpec) (*session.Writer, error) {
	id := spec.args.SessionID
	if id != "" {
		root, err := s.sessionRoot(spec.ws, id)
		if err != nil {
			return nil, sessionError(contract.CommandRun, err)
		}
		if root != spec.root {
			if spec.args.URI != "" {
				return nil, fmt.Errorf("%w: %s: session %s works in %s, and %s is in another folder", errInvalidParams, contract.CommandRun, id, root, spec.args.URI)
			}
			spec.root = root
		}
	}
	w, err := s.host.Session(spec.root, id, spec.h.id, shorten(cmp.Or(strings.TrimSpace(spec.args.Title), spec.task.Prompt), 80))
	if err != nil {
		return nil, sessionError(contract.CommandRun, err)
	}
	return w, nil
}

// sessionError is the command error for a session that cannot be used:
// InvalidParams for an id that names none, InvalidRequest otherwise (busy,
// a file that does not read).
func sessionError(command string, err error) error {
	switch {
	case errors.Is(err, session.ErrNotFound), errors.Is(err, session.ErrNothingToRevert):
		return fmt.Errorf("%w: %s: %v", errInvalidParams, command, err)
	case errors.Is(err, session.ErrBusy):
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, fmt.Sprintf("agentls: %v; wait for it to end, or cancel it", err))
	case errors.Is(err, runner.ErrNoSessions):
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls: "+err.Error())
	}
	return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "agentls: "+err.Error())
}

// usageLine says briefly what runs used: "12.3k tokens, $0.0042".
func usageLine(u agent.Usage) string {
	n := u.Prompt + u.Output + u.Thoughts + u.ToolUse
	tokens := fmt.Sprintf("%d tokens", n)
	if n >= 1000 {
		tokens = fmt.Sprintf("%.1fk tokens", float64(n)/1000)
	}
	switch {
	case u.Unpriced && u.Cost == 0:
		return tokens + ", cost unknown"
	case u.Unpriced:
		return fmt.Sprintf("%s, %s and calls of unpriced models", tokens, agent.Dollars(u.Cost))
	}
	return fmt.Sprintf("%s, %s", tokens, agent.Dollars(u.Cost))
}
