package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
)

// A tool is one tool of an MCP server, as a run's model sees it.
type tool struct {
	decl Decl
	conn *conn     // nil: offline (a replay's stand-in)
	run  *runState // shared by the tools of a run
}

// Offline returns the tool d declares without a server: it declares, asks
// for approval and is trusted as the live one was, and its calls fail. A
// replay gives it the recorded results.
func Offline(d Decl) agent.Tool { return &tool{decl: d} }

// Declaration implements agent.Tool: the server's description and input
// schema, as they are.
func (t *tool) Declaration() *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: t.decl.Name, Description: t.decl.Description,
		ParametersJsonSchema: json.RawMessage(t.decl.Parameters)}
}

// Approval implements agent.Approvable: the user allows this server's tool
// with these arguments.
func (t *tool) Approval(args json.RawMessage) (agent.Approval, error) {
	a, err := compactArgs(args)
	if err != nil {
		return agent.Approval{}, err
	}
	ap := agent.Approval{Tool: t.decl.Name, Server: t.decl.Server, ServerTool: t.decl.Tool, Args: a}
	if allow, ok := policy.AlwaysFor(ap, ""); ok {
		ap.Rule = allow.Text()
	}
	return ap, nil
}

// Trusted implements agent.Trusted: the user's own settings trust the
// server.
func (t *tool) Trusted() bool { return t.decl.Trusted }

// Describe implements agent.Describer.
func (t *tool) Describe(json.RawMessage) string {
	return fmt.Sprintf("Calling %s on MCP server %s", t.decl.Tool, t.decl.Server)
}

// Run implements agent.Tool: it calls the tool on its server. A server that
// is not running (it stopped) is started again once per run; one that
// stops during the call too, and the model is told the call may or may
// not have taken effect.
func (t *tool) Run(ctx context.Context, call *agent.Call) (agent.Result, error) {
	args, err := compactArgs(call.Args)
	if err != nil {
		return agent.Errorf("%v", err), nil
	}
	if t.conn == nil {
		return agent.Errorf("MCP server %q is not connected", t.decl.Server), nil
	}
	s, err := t.conn.live(ctx, false)
	if err == nil && s == nil {
		s, err = t.again(ctx, call, t.conn.ended())
	}
	if err != nil {
		if ctx.Err() != nil {
			return agent.Result{}, ctx.Err()
		}
		return agent.Errorf("MCP server %q is not running: %v", t.decl.Server, err), nil
	}
	timeout := t.conn.m.callTimeout(t.conn.srv)
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := s.CallTool(cctx, &mcp.CallToolParams{Name: t.decl.Tool, Arguments: args})
	var wire *jsonrpc.Error
	switch {
	case err == nil && res == nil:
		return agent.Errorf("MCP server %q answered the call with nothing", t.decl.Server), nil
	case err == nil:
		return result(t.decl.Server, t.decl.Tool, res), nil
	case ctx.Err() != nil:
		return agent.Result{}, ctx.Err()
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return agent.Errorf("MCP server %q did not answer within %v; the call may or may not have taken effect", t.decl.Server, timeout), nil
	case errors.As(err, &wire):
		return agent.Errorf("MCP server %q refused the call: %s", t.decl.Server, wire.Message), nil
	}
	// The connection broke during the call.
	why := t.conn.ended()
	if why == "" {
		why = err.Error()
	}
	t.conn.drop(s, why)
	msg := fmt.Sprintf("MCP server %q stopped during the call (%s); the call may or may not have taken effect: check before you repeat it", t.decl.Server, why)
	if _, err := t.again(ctx, call, why); err != nil {
		if ctx.Err() != nil {
			return agent.Result{}, ctx.Err()
		}
		return agent.Errorf("%s. %v", msg, err), nil
	}
	return agent.Errorf("%s. The server was started again.", msg), nil
}

// again starts the stopped server again, once per run, and reports it on
// the run's stream.
func (t *tool) again(ctx context.Context, call *agent.Call, why string) (*mcp.ClientSession, error) {
	name := t.decl.Server
	if !t.run.restart(t.conn) {
		err := fmt.Errorf("it stopped again (%s), and is started again only once per run", why)
		call.Emit(agent.Event{Type: agent.EventWarning, Text: fmt.Sprintf("MCP server %q stopped again: %s; it is not started again in this run", name, why)})
		return nil, err
	}
	s, err := t.conn.restart(ctx)
	if err != nil {
		call.Emit(agent.Event{Type: agent.EventWarning, Text: fmt.Sprintf("MCP server %q stopped (%s) and did not start again: %v", name, why, err)})
		return nil, fmt.Errorf("it did not start again: %w", err)
	}
	call.Emit(agent.Event{Type: agent.EventWarning, Text: fmt.Sprintf("MCP server %q stopped (%s); it was started again", name, why)})
	return s, nil
}
