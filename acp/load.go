package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// loadSession would continue a session kept from before (session/load);
// agentls keeps no sessions yet, and advertises no loadSession.
func (s *Server) loadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	return acpsdk.LoadSessionResponse{}, rpcError(codeMethodNotFound, "session/load is not supported: agentls keeps no sessions yet (loadSession is false)")
}

// listSessions would list the sessions kept (session/list).
func (s *Server) listSessions(p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return acpsdk.ListSessionsResponse{}, rpcError(codeMethodNotFound, "session/list is not supported: agentls keeps no sessions yet")
}
