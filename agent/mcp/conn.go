package mcp

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A conn is one server running for one workspace folder.
type conn struct {
	m      *Manager
	srv    Server
	def    string // the server's settings, to see them change
	stderr *tail  // the end of a command's stderr, for reports

	mu       sync.Mutex
	session  *mcp.ClientSession // nil: not running
	proc     *process           // a command's process, while it runs
	tools    []listed           // as last listed
	stale    bool               // the server said its tool list changed
	failed   error              // the last start failed: not tried again
	starting chan struct{}      // closed when the start under way ends
	closed   bool
	exit     string // how the last session ended, when it ended by itself
}

// A listed tool is one of a server's tools, with its schema checked.
type listed struct {
	name, description string
	schema            []byte
	err               error // the schema is not valid
}

// toolList returns the server's tools, starting it when it is not running
// and listing them again when it said they changed.
func (c *conn) toolList(ctx context.Context) ([]listed, error) {
	s, err := c.live(ctx, true)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	stale, tools := c.stale, c.tools
	c.stale = false
	c.mu.Unlock()
	if !stale {
		return tools, nil
	}
	lctx, cancel := context.WithTimeout(ctx, c.m.startTimeout(c.srv))
	defer cancel()
	tools, err = list(lctx, s)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.session == s {
		c.tools = tools
	}
	c.mu.Unlock()
	return tools, nil
}

// live returns the running session; when none runs, it starts one if
// start is set, else it returns nil. A start that failed is not tried
// again: its error is returned.
func (c *conn) live(ctx context.Context, start bool) (*mcp.ClientSession, error) {
	c.mu.Lock()
	for {
		switch {
		case c.closed:
			c.mu.Unlock()
			return nil, errClosed
		case c.session != nil:
			s := c.session
			c.mu.Unlock()
			return s, nil
		case c.failed != nil:
			err := c.failed
			c.mu.Unlock()
			return nil, err
		case !start && c.starting == nil:
			c.mu.Unlock()
			return nil, nil
		case c.starting == nil:
			done := make(chan struct{})
			if !c.m.goTask(func() { c.start(done) }) {
				c.mu.Unlock()
				return nil, errClosed
			}
			c.starting = done
		}
		done := c.starting
		c.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		c.mu.Lock()
	}
}

// restart starts the server again after it stopped; it fails when the
// server is running (someone else started it again) only if that start
// failed.
func (c *conn) restart(ctx context.Context) (*mcp.ClientSession, error) {
	c.mu.Lock()
	c.failed = nil
	c.mu.Unlock()
	return c.live(ctx, true)
}

// start connects to the server and lists its tools, within the server's
// start timeout, then closes done. It runs as a manager task.
func (c *conn) start(done chan struct{}) {
	// The session lives on the context it connects with (an SSE stream is
	// a request on it): the timeout ends the start, not the session.
	ctx, cancel := context.WithCancel(c.m.base)
	timeout := c.m.startTimeout(c.srv)
	timer := time.AfterFunc(timeout, cancel)
	s, proc, tools, err := c.connect(ctx)
	timedOut := !timer.Stop()
	c.mu.Lock()
	defer func() {
		c.starting = nil
		close(done)
		c.mu.Unlock()
	}()
	switch {
	case c.closed || c.m.base.Err() != nil:
		err = errClosed
	case timedOut:
		err = fmt.Errorf("no answer within %v", timeout)
	}
	if err != nil {
		cancel()
		if s != nil || proc != nil {
			c.m.tasks.Go(func() { shut(s, proc) })
		}
		c.failed = c.withStderr(err)
		return
	}
	c.session, c.proc, c.tools, c.stale, c.failed, c.exit = s, proc, tools, false, nil, ""
	c.m.tasks.Go(func() {
		defer cancel()
		c.watch(s, proc)
	})
}

// connect starts the server, or reaches it, and lists its tools.
func (c *conn) connect(ctx context.Context) (*mcp.ClientSession, *process, []listed, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "agentls", Version: c.m.cfg.Version}, &mcp.ClientOptions{
		// No roots, no sampling, no elicitation: agentls asks servers for
		// tools and nothing else.
		Capabilities: &mcp.ClientCapabilities{},
		ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) {
			c.mu.Lock()
			c.stale = true
			c.mu.Unlock()
		},
	})
	var t mcp.Transport
	var proc *process
	switch c.srv.Transport {
	case "stdio":
		cmd := exec.Command(c.srv.Command, c.srv.Args...)
		cmd.Dir = c.srv.Dir
		cmd.Env = environ(c.m.cfg.Environ, c.m.cfg.Secrets, c.srv.Env)
		cmd.Stderr = c.stderr
		cmd.WaitDelay = time.Second
		proc = newProcess(cmd)
		t = &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}
	case "http":
		t = &mcp.StreamableClientTransport{Endpoint: c.srv.URL, HTTPClient: c.httpClient(), MaxRetries: 2}
	case "sse":
		t = &mcp.SSEClientTransport{Endpoint: c.srv.URL, HTTPClient: c.httpClient()}
	default:
		return nil, nil, nil, fmt.Errorf("unknown transport %q", c.srv.Transport)
	}
	s, err := client.Connect(ctx, t, nil)
	if err != nil {
		if proc != nil && !proc.started() {
			proc = nil
		}
		return nil, proc, nil, err
	}
	tools, err := list(ctx, s)
	if err != nil {
		return s, proc, nil, fmt.Errorf("listing its tools: %w", err)
	}
	return s, proc, tools, nil
}

// list lists a session's tools and checks their schemas.
func list(ctx context.Context, s *mcp.ClientSession) ([]listed, error) {
	var out []listed
	for t, err := range s.Tools(ctx, nil) {
		if err != nil {
			return nil, err
		}
		l := listed{name: t.Name, description: t.Description}
		l.schema, l.err = inputSchema(t.InputSchema)
		out = append(out, l)
	}
	return out, nil
}

// watch waits for a session to end. One that ends by itself (the server
// exited, the connection broke) is closed, its process group killed, and
// the next use starts the server again.
func (c *conn) watch(s *mcp.ClientSession, proc *process) {
	err := s.Wait()
	c.mu.Lock()
	if c.session == s {
		c.session, c.proc = nil, nil
		c.exit = c.describeExit(err)
	}
	c.mu.Unlock()
	shut(s, proc)
}

// drop ends the session s when it is still the running one: the server
// stopped answering, or broke the protocol.
func (c *conn) drop(s *mcp.ClientSession, why string) {
	c.mu.Lock()
	var proc *process
	if c.session == s {
		proc = c.proc
		c.session, c.proc, c.exit = nil, nil, why
	}
	c.mu.Unlock()
	shut(s, proc)
}

// ended says how the server's last session ended.
func (c *conn) ended() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.exit
}

// close ends the server for good.
func (c *conn) close() {
	c.mu.Lock()
	c.closed = true
	s, proc := c.session, c.proc
	c.session, c.proc = nil, nil
	c.mu.Unlock()
	if s != nil {
		shut(s, proc)
	}
}

// shut closes a session and kills what is left of its command's process
// group.
func shut(s *mcp.ClientSession, proc *process) {
	if proc != nil {
		// Before Close reaps the command: its pid still names its group.
		proc.kill()
	}
	if s != nil {
		s.Close()
	}
}

// withStderr adds the last lines a command wrote on stderr to err.
func (c *conn) withStderr(err error) error {
	if last := c.stderr.lastLines(3); last != "" {
		return fmt.Errorf("%w (its stderr ends: %s)", err, last)
	}
	return err
}

// describeExit says how a session that ended by itself ended.
func (c *conn) describeExit(err error) string {
	msg := "the connection ended"
	if c.srv.Transport == "stdio" {
		msg = "the server exited"
	}
	if err != nil && !errors.Is(err, mcp.ErrConnectionClosed) {
		msg += ": " + err.Error()
	}
	if last := c.stderr.lastLines(3); last != "" {
		msg += " (its stderr ends: " + last + ")"
	}
	return msg
}

// httpClient sends the server's headers with every request.
func (c *conn) httpClient() *http.Client {
	h := http.Header{}
	for k, v := range c.srv.Headers {
		h.Set(k, expand(v, c.m.cfg.Environ))
	}
	return &http.Client{Transport: headerTransport{base: http.DefaultTransport, h: h}}
}

type headerTransport struct {
	base http.RoundTripper
	h    http.Header
}

func (t headerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	for k, vs := range t.h {
		req.Header[k] = vs
	}
	return t.base.RoundTrip(req)
}

// A tail keeps the last max bytes written to it.
type tail struct {
	max int

	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*t.max {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-t.max:]...)
	}
	return len(p), nil
}

// lastLines returns the last n non-empty lines, joined with " | ", each at
// most 200 bytes, with control characters taken out.
func (t *tail) lastLines(n int) string {
	t.mu.Lock()
	text := string(t.buf)
	t.mu.Unlock()
	var lines []string
	for _, l := range strings.Split(text, "\n") {
		l = strings.TrimSpace(strings.Map(func(r rune) rune {
			if r < 0x20 || r == 0x7f {
				return -1
			}
			return r
		}, l))
		if l != "" {
			lines = append(lines, capOutput(l, 200))
		}
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
