package lsp

import (
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/lsp/transport"
	"github.com/agentls/agentls/runner"

	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

// Config configures a Server.
type Config struct {
	// NewModel returns the model for a run; model is the settings' model
	// name. It is called when a run starts, so a missing API key is reported
	// on the run, not at start-up.
	NewModel func(ctx context.Context, model string) (agent.Model, error)
	Logger   *slog.Logger     // nil: discard
	Now      func() time.Time // nil: time.Now
	Version  string
	// Exit is called on the exit notification with the exit code the spec
	// asks for (0 after shutdown, 1 otherwise). nil: Serve returns.
	Exit func(code int)
	// CacheDir is where answers and diffs shown with window/showDocument
	// are written. "": the user's cache directory, under agentls/.
	CacheDir string
	// SettleTimeout bounds the wait, after the editor answered applied, for
	// its didChange to show the new text. 0: two seconds.
	SettleTimeout time.Duration
	// DiagnosticsWait bounds the wait, after a change was applied, for the
	// editor's diagnostics of the new text (a client that sends
	// agentls/diagnostics). 0: two seconds.
	DiagnosticsWait time.Duration
	// ShowDocumentTimeout bounds the wait for the client to open a document
	// (an answer, a diff) with window/showDocument. 0: ten seconds.
	ShowDocumentTimeout time.Duration
	// UserConfigDir is the user's agentls folder: settings.json,
	// policy.toml, the trusted folders, agents/*.md and the user's
	// AGENTS.md. "": none (tests).
	UserConfigDir string
	// Secrets are values no shell command and no trace may see, such as
	// the model's API key.
	Secrets []string
	// After returns a channel that receives once d has passed, for the
	// server's bounded waits (a run waiting for the first configuration
	// pull); nil: time.After. Tests pass a fake clock.
	After func(d time.Duration) <-chan time.Time
	// TraceDir is where runs write their traces (<dir>/<workspace
	// hash>/<runId>.jsonl); "": runs are not traced.
	TraceDir string
	// SessionDir is where sessions are kept (<dir>/<workspace
	// hash>/<sessionId>.jsonl); "": in memory, for the server's life.
	SessionDir string
	// Environ is the environment the server started with, credentials
	// included ("NAME=value"): shell commands start from it, less the
	// variables that hold secrets, and traces scrub those secrets. nil: the
	// process's environment now.
	Environ []string
}

// Server is one LSP connection's server.
type Server struct {
	protocol.UnimplementedServer

	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	after  func(time.Duration) <-chan time.Time
	client protocol.Client
	conn   jsonrpc2.Conn
	root   context.Context // runs derive from it; cancelled when the connection ends
	stop   context.CancelFunc
	// exiting ends when exit arrives or the connection ends: no request to
	// the client may be waited for after that (outgoingContext).
	exiting context.Context
	exit    context.CancelFunc
	// lifted turns the placeholder of a text the transport lifted out of
	// a didOpen or didChange back into the text (textsync.go); nil on a
	// stream that lifts nothing.
	lifted func(string) (string, error)

	mu       sync.Mutex
	state    lifecycleState
	ws       *workspace.Workspace
	folders  []string // the workspace folders as the client named them
	caps     clientCaps
	settings contract.Settings
	config   configState
	closing  bool // set when the connection ends: no new background work

	host     *runner.Host        // builds the runs
	inflight *transport.Inflight // bounds the requests running at once
	runs     runs
	files    fileLocks
	docs     docWatch
	applied  appliedEdits   // applied:true, not reported yet (applied.go)
	diags    diagStore      // the editor's diagnostics (agentls/diagnostics)
	tasks    sync.WaitGroup // background work other than runs (configuration pulls)

	approvals approvals // the session's policy engine (approvals.go)
	answers   answers   // the latest text answers, for follow-up runs (followup.go)
}

type lifecycleState int

const (
	stateNew lifecycleState = iota
	stateRunning
	stateShutdown
)

// clientCaps is what the server uses of the client's capabilities.
type clientCaps struct {
	encoding          lspedit.Encoding
	workDoneProgress  bool
	applyEdit         bool
	documentChanges   bool
	changeAnnotations bool
	resourceOps       []protocol.ResourceOperationKind
	showDocument      bool
	configuration     bool
	plugin            bool // an agentls plugin reviews proposals (experimental.agentls.hunkReview)
	quirks            quirks
}

// confirms reports whether the client asks the user itself, truthfully, before
// it applies an edit: it can receive annotated edits (documentChanges and
// change annotations) and its No comes back as a No. Otherwise the server
// asks first: an edit is never sent that no one confirmed.
func (c clientCaps) confirms() bool {
	return c.documentChanges && c.changeAnnotations && !c.quirks.confirmCannotRefuse
}

// canCreate reports whether the client creates files through a
// WorkspaceEdit.
func (c clientCaps) canCreate() bool {
	return slices.Contains(c.resourceOps, protocol.ResourceOperationKindCreate)
}

// canDelete reports whether the client deletes files through a
// WorkspaceEdit.
func (c clientCaps) canDelete() bool {
	return slices.Contains(c.resourceOps, protocol.ResourceOperationKindDelete)
}

// New returns a server; Serve connects it.
func New(cfg Config) *Server {
	s := &Server{cfg: cfg, log: cfg.Logger, now: cfg.Now, settings: contract.DefaultSettings()}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.exiting, s.exit = context.WithCancel(context.Background())
	s.after = cfg.After
	if s.after == nil {
		s.after = time.After
	}
	s.host = &runner.Host{UserConfigDir: cfg.UserConfigDir, TraceDir: cfg.TraceDir, Version: cfg.Version,
		NewModel: cfg.NewModel, Secrets: cfg.Secrets, Environ: cfg.Environ, Now: s.now, Warn: func(msg string) { s.log.Warn(msg) },
		// A run's warning events are logged as they are reported (report.go).
		ShowsWarnings: true,
		Sessions:      session.NewStore(cfg.SessionDir, s.now),
		MCP:           mcp.New(mcp.Config{Environ: cfg.Environ, Secrets: cfg.Secrets, Version: cfg.Version})}
	s.config.file.path = contract.UserSettingsFile(cfg.UserConfigDir)
	s.inflight = transport.NewInflight(0)
	s.runs.init()
	s.docs.init()
	s.config.init()
	return s
}

// Serve speaks LSP on rwc until the client disconnects or exits. When the
// connection ends, every run is cancelled and Serve waits for them.
func (s *Server) Serve(ctx context.Context, rwc io.ReadWriteCloser) error {
	root, stop := context.WithCancel(ctx)
	defer stop()
	stream := transport.NewStream(&eofCanceller{rwc: rwc, cancel: stop}, s.log)
	return s.ServeStream(root, stream, stop)
}

// ServeStream is Serve on a jsonrpc2 stream; stop is called when the stream
// ends.
func (s *Server) ServeStream(ctx context.Context, stream jsonrpc2.Stream, stop context.CancelFunc) error {
	s.root, s.stop = ctx, stop
	if ts, ok := stream.(*transport.Stream); ok {
		ts.SetLift(transport.Lift{Methods: []string{protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange}, Member: "text", Min: bigText})
		s.lifted = ts.Lifted
	}
	s.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(transport.Codec{}))
	s.client = protocol.ClientDispatcher(s.conn)
	s.conn.Go(protocol.WithClient(ctx, s.client), s.handler())
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	stop()
	s.exit()
	s.mu.Lock()
	s.closing = true
	s.mu.Unlock()
	s.runs.wait()
	s.tasks.Wait()
	s.host.MCP.Close() // every MCP server, with its process group
	s.host.Wait()      // a prune of the trace folder
	go s.conn.Close()
	if err := s.conn.Err(); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return nil
}

// eofCanceller cancels the server's root context when reading fails: the
// client is gone, and in-flight work must stop (jsonrpc2 does not cancel
// handler contexts on EOF).
type eofCanceller struct {
	rwc    io.ReadWriteCloser
	cancel context.CancelFunc
}

func (e *eofCanceller) Read(p []byte) (int, error) {
	n, err := e.rwc.Read(p)
	if err != nil {
		e.cancel()
	}
	return n, err
}

func (e *eofCanceller) Write(p []byte) (int, error) { return e.rwc.Write(p) }
func (e *eofCanceller) Close() error                { return e.rwc.Close() }

func (s *Server) lifecycle() lifecycleState {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state
}

// Request answers methods the protocol package does not know.
func (s *Server) Request(ctx context.Context, method string, params any) (any, error) {
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "method not supported: "+method)
}

// cacheDir is where files for window/showDocument go.
func (s *Server) cacheDir() (string, error) {
	if s.cfg.CacheDir != "" {
		return s.cfg.CacheDir, nil
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "agentls"), nil
}

func (s *Server) showDocumentTimeout() time.Duration {
	if s.cfg.ShowDocumentTimeout > 0 {
		return s.cfg.ShowDocumentTimeout
	}
	return 10 * time.Second
}

// outgoingContext is the context of a request to the client that must be
// answered even after ctx ends (a run's last words), bounded by timeout:
// it ends when the server exits. The exit handler waits for the runs while
// it holds the connection's reader, so an answer could never be read then.
func (s *Server) outgoingContext(ctx context.Context, timeout time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), timeout)
	stop := context.AfterFunc(s.exiting, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

func (s *Server) settleTimeout() time.Duration {
	if s.cfg.SettleTimeout > 0 {
		return s.cfg.SettleTimeout
	}
	return 2 * time.Second
}
