package acp

import (
	"context"
	"io"
	"log/slog"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
)

// Config configures a Server.
type Config struct {
	// Host builds the runs, as it does for the other front ends.
	Host *runner.Host
	// Settings are the user's settings (a settings file, the environment)
	// every session starts from; ACP has no workspace/configuration.
	Settings contract.Settings
	// Problems are what was wrong with the settings; each session's first
	// turn tells them.
	Problems []string
	// PolicyFile is the user's policy file ("" for none); each session's
	// policy engine reads it and the session folder's.
	PolicyFile string
	// Version is agentls's version, for agentInfo.
	Version string
	// Logger receives the log (stderr: stdout is the protocol's); nil
	// discards it.
	Logger *slog.Logger
}

// A Server serves one client over ACP.
type Server struct {
	cfg  Config
	log  *slog.Logger
	conn *acpsdk.AgentSideConnection // set by Serve before connected is closed
	// connected is closed once conn is set: a handler that talks to the
	// client waits for it (the SDK may call one before Serve has conn).
	connected chan struct{}

	mu       sync.Mutex
	caps     acpsdk.ClientCapabilities
	ready    bool                // initialize was answered
	closed   bool                // Serve is stopping: no new turn
	sessions map[string]*session // by id
	turns    sync.WaitGroup      // the turns under way
}

// New returns a server; Serve serves a client with it.
func New(cfg Config) *Server {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{cfg: cfg, log: log, sessions: make(map[string]*session), connected: make(chan struct{})}
}

// Serve speaks ACP with the client on in and out until the client closes
// in or ctx ends; either stops every turn (their commands are killed,
// nothing is written after) and returns once they have stopped.
func (s *Server) Serve(ctx context.Context, in io.Reader, out io.Writer) error {
	g := newGate(out, s.log.Handler())
	defer g.close()
	pr, pw := io.Pipe()
	conn := acpsdk.NewAgentSideConnection(adapter{s}, g, pr)
	conn.SetLogger(g.logger()) // Inv: before the guard starts, so before the SDK reads (or logs) anything
	go guard(in, pw, g, g.logger())
	s.conn = conn
	close(s.connected)
	select {
	case <-conn.Done():
		// The client closed its end: every request it sent is answered
		// (a turn, cancelled) before Serve returns.
		s.closeAll()
		g.drain()
	case <-ctx.Done():
		s.closeAll()
	}
	s.turns.Wait()
	s.mu.Lock()
	for _, ss := range s.sessions {
		ss.forget()
	}
	s.mu.Unlock()
	pr.Close()
	return ctx.Err()
}

// client is the connection to the client.
func (s *Server) client() *acpsdk.AgentSideConnection {
	<-s.connected
	return s.conn
}

// closeAll stops every session's turn; no turn starts after it.
func (s *Server) closeAll() {
	s.mu.Lock()
	s.closed = true
	sessions := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		sessions = append(sessions, ss)
	}
	s.mu.Unlock()
	for _, ss := range sessions {
		ss.cancelTurn()
	}
}

// session returns the session of an id, or a clear error.
func (s *Server) session(id acpsdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		return nil, rpcError(codeInvalidRequest, "send initialize first")
	}
	ss := s.sessions[string(id)]
	if ss == nil {
		return nil, rpcError(codeInvalidParams, "unknown session %q", id)
	}
	return ss, nil
}

func (s *Server) clientCaps() acpsdk.ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// initialize answers the client's capabilities with the agent's.
func (s *Server) initialize(p acpsdk.InitializeRequest) (acpsdk.InitializeResponse, error) {
	s.mu.Lock()
	s.caps, s.ready = p.ClientCapabilities, true
	s.mu.Unlock()
	title := "agentls"
	return acpsdk.InitializeResponse{
		ProtocolVersion: acpsdk.ProtocolVersionNumber, // the one version there is; a client on another says so
		AgentInfo:       &acpsdk.Implementation{Name: "agentls", Title: &title, Version: s.cfg.Version},
		AuthMethods:     []acpsdk.AuthMethod{}, // the API key comes from the environment
		AgentCapabilities: acpsdk.AgentCapabilities{
			// Text and resource links, and embedded text resources (an
			// @-mention's file); no images or audio: a task is text.
			PromptCapabilities:  acpsdk.PromptCapabilities{EmbeddedContext: true},
			SessionCapabilities: sessionCaps(s.cfg.Host.Sessions != nil),
			LoadSession:         s.cfg.Host.Sessions != nil,
			// Stdio servers every agent takes; HTTP and SSE ones too.
			McpCapabilities: acpsdk.McpCapabilities{Http: s.cfg.Host.MCP != nil, Sse: s.cfg.Host.MCP != nil},
		},
	}, nil
}

// sessionCaps are the session methods offered besides the baseline:
// close, and list when sessions are kept.
func sessionCaps(kept bool) acpsdk.SessionCapabilities {
	c := acpsdk.SessionCapabilities{Close: &acpsdk.SessionCloseCapabilities{}}
	if kept {
		c.List = &acpsdk.SessionListCapabilities{}
	}
	return c
}

// closeSession stops a session's turn and forgets the session.
func (s *Server) closeSession(p acpsdk.CloseSessionRequest) (acpsdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.CloseSessionResponse{}, err
	}
	s.mu.Lock()
	delete(s.sessions, ss.id)
	s.mu.Unlock()
	ss.cancelTurn()
	ss.forget()
	return acpsdk.CloseSessionResponse{}, nil
}

// cancel stops a session's turn (session/cancel); the SDK has already
// cancelled the turn's request.
func (s *Server) cancel(p acpsdk.CancelNotification) error {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return err
	}
	ss.cancelTurn()
	return nil
}
