package acp

import (
	"context"

	acpsdk "github.com/coder/acp-go-sdk"
)

// adapter is the Server as the SDK sees it: each method decodes nothing
// (the SDK has) and hands off to the server, a panic turned into an error.
type adapter struct{ s *Server }

var (
	_ acpsdk.Agent       = adapter{}
	_ acpsdk.AgentLoader = adapter{}
)

func (a adapter) Initialize(ctx context.Context, p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	return safely(a.s.log, "initialize", func() (acpsdk.InitializeResponse, error) { return a.s.initialize(p) })
}

func (a adapter) Authenticate(ctx context.Context, p acpsdk.AuthenticateRequest) (acpsdk.AuthenticateResponse, error) {
	return acpsdk.AuthenticateResponse{}, rpcError(codeInvalidParams,
		"agentls offers no authentication methods: it reads GEMINI_API_KEY (or Vertex AI's settings) from its environment")
}

func (a adapter) Logout(ctx context.Context, p acpsdk.LogoutRequest) (acpsdk.LogoutResponse, error) {
	return acpsdk.LogoutResponse{}, rpcError(codeMethodNotFound, "agentls has no login to end: it reads its API key from its environment")
}

func (a adapter) NewSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	return safely(a.s.log, "session/new", func() (acpsdk.NewSessionResponse, error) { return a.s.newSession(ctx, p) })
}

func (a adapter) LoadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	return safely(a.s.log, "session/load", func() (acpsdk.LoadSessionResponse, error) { return a.s.loadSession(ctx, p) })
}

func (a adapter) ListSessions(ctx context.Context, p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	return safely(a.s.log, "session/list", func() (acpsdk.ListSessionsResponse, error) { return a.s.listSessions(p) })
}

func (a adapter) ResumeSession(ctx context.Context, p acpsdk.ResumeSessionRequest) (acpsdk.ResumeSessionResponse, error) {
	return acpsdk.ResumeSessionResponse{}, rpcError(codeMethodNotFound, "session/resume is not supported: use session/load")
}

func (a adapter) CloseSession(ctx context.Context, p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	return safely(a.s.log, "session/close", func() (acpsdk.CloseSessionResponse, error) { return a.s.closeSession(p) })
}

func (a adapter) SetSessionMode(ctx context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	return safely(a.s.log, "session/set_mode", func() (acpsdk.SetSessionModeResponse, error) { return a.s.setMode(ctx, p) })
}

func (a adapter) SetSessionConfigOption(ctx context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	return safely(a.s.log, "session/set_config_option", func() (acpsdk.SetSessionConfigOptionResponse, error) {
		return a.s.setConfigOption(ctx, p)
	})
}

func (a adapter) Prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	return safely(a.s.log, "session/prompt", func() (acpsdk.PromptResponse, error) { return a.s.prompt(ctx, p) })
}

func (a adapter) Cancel(ctx context.Context, p acpsdk.CancelNotification) error {
	_, err := safely(a.s.log, "session/cancel", func() (struct{}, error) { return struct{}{}, a.s.cancel(p) })
	return err
}
