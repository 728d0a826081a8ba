package acp_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/acp"
	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/mcp"
	sessions "github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start")); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

// A harness is agentls's ACP server on one end of two pipes and the SDK's
// client side on the other, the model being the fake Gemini server through
// the real genai SDK.
type harness struct {
	t      *testing.T
	dir    string // the session's folder
	gem    *geminitest.Server
	conn   *acpsdk.ClientSideConnection
	client *client
	in     *io.PipeWriter // the client's end of the server's stdin
	served chan struct{}  // closed when Serve returns
	trace  string         // the trace folder

	sessions *sessions.Store
	cfg      harnessConfig
	caps     acpsdk.FileSystemCapabilities
}

type option func(*harnessConfig)

type harnessConfig struct {
	settings contract.Settings
	problems []string
}

func withSettings(f func(*contract.Settings)) option {
	return func(c *harnessConfig) { f(&c.settings) }
}

// start starts a server and a client with fs capabilities caps, the model
// playing turns, the folder holding files.
func start(t *testing.T, caps acpsdk.FileSystemCapabilities, files map[string]string, turns []geminitest.Turn, opts ...option) *harness {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		write(t, filepath.Join(dir, name), text)
	}
	cfg := harnessConfig{settings: contract.DefaultSettings()}
	cfg.settings.Model = "gemini-test"
	for _, o := range opts {
		o(&cfg)
	}
	h := &harness{t: t, dir: dir, gem: geminitest.NewServer(t, turns...), trace: t.TempDir(),
		sessions: sessions.NewStore(t.TempDir(), nil), cfg: cfg, caps: caps}
	h.connect()
	return h
}

// connect starts a server on the harness's folder, model and sessions, and
// a client of it, initialized.
func (h *harness) connect() {
	t := h.t
	t.Helper()
	gem := h.gem
	host := &runner.Host{
		TraceDir: h.trace,
		Version:  "test",
		NewModel: func(ctx context.Context, name string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: name, Getenv: func(string) string { return "" }})
		},
		Environ:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + h.dir},
		Sessions: h.sessions,
	}
	host.MCP = mcp.New(mcp.Config{Environ: host.Environ, Version: "test"})
	srv := acp.New(acp.Config{Host: host, Settings: h.cfg.settings, Problems: h.cfg.problems, Version: "test",
		Logger: slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))})
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ctx, c2sR, s2cW); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("Serve: %v", err)
		}
		s2cW.Close()
	}()
	h.served = served
	h.client = newClient(h.dir)
	conn := acpsdk.NewClientSideConnection(h.client, c2sW, s2cR)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	h.conn, h.in = conn, c2sW
	t.Cleanup(func() {
		cancel()
		c2sW.Close()
		<-served
		host.MCP.Close()
		host.Wait()
		s2cR.Close()
		<-conn.Done()
	})
	if _, err := h.conn.Initialize(t.Context(), acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: h.caps}}); err != nil {
		t.Fatal(err)
	}
}

// restart ends the client and its server, as an editor that quits does,
// and connects anew.
func (h *harness) restart() {
	h.t.Helper()
	h.in.Close()
	<-h.served
	h.connect()
}

// newSession opens a session in the harness's folder.
func (h *harness) newSession() acpsdk.NewSessionResponse {
	h.t.Helper()
	resp, err := h.conn.NewSession(h.t.Context(), acpsdk.NewSessionRequest{Cwd: h.dir, McpServers: []acpsdk.McpServer{}})
	if err != nil {
		h.t.Fatal(err)
	}
	return resp
}

// prompt sends a text prompt and returns the answer.
func (h *harness) prompt(sid acpsdk.SessionId, text string) (acpsdk.PromptResponse, error) {
	return h.conn.Prompt(h.t.Context(), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock(text)}})
}

func (h *harness) read(name string) string {
	h.t.Helper()
	b, err := os.ReadFile(filepath.Join(h.dir, name))
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// toldModel reports whether the last request to the model holds s (in a
// function response or any other part).
func (h *harness) toldModel(s string) bool {
	reqs := h.gem.Requests()
	if len(reqs) == 0 {
		return false
	}
	return strings.Contains(string(reqs[len(reqs)-1].Body), s)
}

// A client is an editor as the SDK's client side: it keeps what it was
// sent, holds unsaved buffers, and answers permission requests with the
// answer function (nil: the first option).
type client struct {
	dir string

	mu        sync.Mutex
	updates   []acpsdk.SessionUpdate
	asked     []acpsdk.RequestPermissionRequest
	writes    []acpsdk.WriteTextFileRequest
	reads     []string
	buffers   map[string]string // unsaved text, by path
	answer    func(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error)
	asking    chan acpsdk.RequestPermissionRequest // each request, when set
	writeFail error
	changed   chan struct{} // closed and replaced on each update
}

func newClient(dir string) *client {
	return &client{dir: dir, buffers: map[string]string{}, changed: make(chan struct{})}
}

func (c *client) SessionUpdate(ctx context.Context, n acpsdk.SessionNotification) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.updates = append(c.updates, n.Update)
	close(c.changed)
	c.changed = make(chan struct{})
	return nil
}

// waitFor waits until an update the client got satisfies ok.
func (c *client) waitFor(t *testing.T, what string, ok func(acpsdk.SessionUpdate) bool) {
	t.Helper()
	for {
		c.mu.Lock()
		for _, u := range c.updates {
			if ok(u) {
				c.mu.Unlock()
				return
			}
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-t.Context().Done():
			t.Fatalf("no update %s", what)
		}
	}
}

func (c *client) RequestPermission(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	c.mu.Lock()
	c.asked = append(c.asked, p)
	answer, asking := c.answer, c.asking
	c.mu.Unlock()
	if asking != nil {
		asking <- p
	}
	if answer != nil {
		return answer(ctx, p)
	}
	return selected(p.Options[0].OptionId), nil
}

func selected(id acpsdk.PermissionOptionId) acpsdk.RequestPermissionResponse {
	return acpsdk.RequestPermissionResponse{Outcome: acpsdk.NewRequestPermissionOutcomeSelected(id)}
}

// choose answers every permission request with the option of this id.
func choose(id string) func(context.Context, acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
	return func(ctx context.Context, p acpsdk.RequestPermissionRequest) (acpsdk.RequestPermissionResponse, error) {
		return selected(acpsdk.PermissionOptionId(id)), nil
	}
}

func (c *client) ReadTextFile(ctx context.Context, p acpsdk.ReadTextFileRequest) (acpsdk.ReadTextFileResponse, error) {
	c.mu.Lock()
	c.reads = append(c.reads, p.Path)
	text, ok := c.buffers[p.Path]
	c.mu.Unlock()
	if ok {
		return acpsdk.ReadTextFileResponse{Content: text}, nil
	}
	b, err := os.ReadFile(p.Path)
	if err != nil {
		return acpsdk.ReadTextFileResponse{}, err
	}
	return acpsdk.ReadTextFileResponse{Content: string(b)}, nil
}

// WriteTextFile writes to the buffer, and saves it, as Zed does.
func (c *client) WriteTextFile(ctx context.Context, p acpsdk.WriteTextFileRequest) (acpsdk.WriteTextFileResponse, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.writes = append(c.writes, p)
	if c.writeFail != nil {
		return acpsdk.WriteTextFileResponse{}, c.writeFail
	}
	delete(c.buffers, p.Path)
	return acpsdk.WriteTextFileResponse{}, os.WriteFile(p.Path, []byte(p.Content), 0o644)
}

var errNoTerminal = errors.New("this client has no terminal")

func (c *client) CreateTerminal(context.Context, acpsdk.CreateTerminalRequest) (acpsdk.CreateTerminalResponse, error) {
	return acpsdk.CreateTerminalResponse{}, errNoTerminal
}
func (c *client) KillTerminal(context.Context, acpsdk.KillTerminalRequest) (acpsdk.KillTerminalResponse, error) {
	return acpsdk.KillTerminalResponse{}, errNoTerminal
}
func (c *client) TerminalOutput(context.Context, acpsdk.TerminalOutputRequest) (acpsdk.TerminalOutputResponse, error) {
	return acpsdk.TerminalOutputResponse{}, errNoTerminal
}
func (c *client) ReleaseTerminal(context.Context, acpsdk.ReleaseTerminalRequest) (acpsdk.ReleaseTerminalResponse, error) {
	return acpsdk.ReleaseTerminalResponse{}, errNoTerminal
}
func (c *client) WaitForTerminalExit(context.Context, acpsdk.WaitForTerminalExitRequest) (acpsdk.WaitForTerminalExitResponse, error) {
	return acpsdk.WaitForTerminalExitResponse{}, errNoTerminal
}

func (c *client) snapshot() (updates []acpsdk.SessionUpdate, asked []acpsdk.RequestPermissionRequest, writes []acpsdk.WriteTextFileRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]acpsdk.SessionUpdate(nil), c.updates...), append([]acpsdk.RequestPermissionRequest(nil), c.asked...),
		append([]acpsdk.WriteTextFileRequest(nil), c.writes...)
}

// transcript is the updates in a short form, one a line, to compare.
func transcript(updates []acpsdk.SessionUpdate) []string {
	var out []string
	for _, u := range updates {
		switch {
		case u.AgentThoughtChunk != nil:
			out = append(out, "thought: "+blockText(u.AgentThoughtChunk.Content))
		case u.AgentMessageChunk != nil:
			out = append(out, "message: "+blockText(u.AgentMessageChunk.Content))
		case u.ToolCall != nil:
			tc := u.ToolCall
			var locs []string
			for _, l := range tc.Locations {
				locs = append(locs, filepath.Base(l.Path))
			}
			out = append(out, fmt.Sprintf("tool_call %s %q %s %s %v", callName(tc.ToolCallId), tc.Title, tc.Kind, tc.Status, locs))
		case u.ToolCallUpdate != nil:
			tu := u.ToolCallUpdate
			line := "tool_call_update " + callName(tu.ToolCallId)
			if tu.Status != nil {
				line += " " + string(*tu.Status)
			}
			for _, c := range tu.Content {
				switch {
				case c.Diff != nil:
					line += fmt.Sprintf(" diff(%s)", filepath.Base(c.Diff.Path))
				case c.Content != nil:
					line += fmt.Sprintf(" text(%q)", firstLine(blockText(c.Content.Content)))
				}
			}
			out = append(out, line)
		case u.Plan != nil:
			var entries []string
			for _, e := range u.Plan.Entries {
				entries = append(entries, string(e.Status)+":"+e.Content)
			}
			out = append(out, "plan: "+strings.Join(entries, ", "))
		case u.UsageUpdate != nil:
			out = append(out, "usage")
		case u.CurrentModeUpdate != nil:
			out = append(out, "mode: "+string(u.CurrentModeUpdate.CurrentModeId))
		case u.ConfigOptionUpdate != nil:
			out = append(out, "config_options")
		case u.SessionInfoUpdate != nil && u.SessionInfoUpdate.Title != nil:
			out = append(out, "title: "+*u.SessionInfoUpdate.Title)
		default:
			out = append(out, "other")
		}
	}
	return out
}

// callName is a wire tool call id without its run: "main-1a2b/c1" → "c1".
func callName(id acpsdk.ToolCallId) string {
	s := string(id)
	return s[strings.LastIndex(s, "/")+1:]
}

func blockText(b acpsdk.ContentBlock) string {
	if b.Text != nil {
		return b.Text.Text
	}
	return "?"
}

func firstLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

// without drops the lines starting with prefix.
func without(lines []string, prefix string) []string {
	var out []string
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// testWriter logs through t, until the test ends.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	defer func() { recover() }() // a log line after the test ended
	w.t.Log(strings.TrimSpace(string(p)))
	return len(p), nil
}

func contains(lines []string, line string) bool {
	for _, l := range lines {
		if l == line {
			return true
		}
	}
	return false
}

func joinLines(lines []string) string { return strings.Join(lines, "\n") }
