package mcp

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type greeting struct {
	Greeting string `json:"greeting"`
}

// goServer is an MCP server of the Go SDK, over streamable HTTP and SSE on
// loopback; it records the Authorization headers it got.
type goServer struct {
	server     *mcp.Server
	http, sse  *httptest.Server
	mu         sync.Mutex
	authorized []string
}

func newGoServer(t *testing.T) *goServer {
	t.Helper()
	g := &goServer{server: mcp.NewServer(&mcp.Implementation{Name: "go-sdk-test", Version: "1"}, nil)}
	mcp.AddTool(g.server, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, greeting, error) {
			return nil, greeting{Greeting: "hello, " + in.Name}, nil
		})
	get := func(*http.Request) *mcp.Server { return g.server }
	record := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			g.mu.Lock()
			g.authorized = append(g.authorized, r.Header.Get("Authorization"))
			g.mu.Unlock()
			h.ServeHTTP(w, r)
		})
	}
	g.http = httptest.NewServer(record(mcp.NewStreamableHTTPHandler(get, nil)))
	g.sse = httptest.NewServer(record(mcp.NewSSEHandler(get, nil)))
	t.Cleanup(func() {
		g.http.CloseClientConnections()
		g.sse.CloseClientConnections()
		g.http.Close()
		g.sse.Close()
	})
	return g
}

func (g *goServer) headers() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.authorized...)
}

func TestHTTPAndSSE(t *testing.T) {
	t.Parallel()
	g := newGoServer(t)
	m := New(Config{Environ: []string{"GO_TOKEN=t0ken"}})
	t.Cleanup(func() { m.Close() })
	servers := []Server{
		{Name: "h", Transport: "http", URL: g.http.URL, Headers: map[string]string{"Authorization": "Bearer ${GO_TOKEN}"}},
		{Name: "s", Transport: "sse", URL: g.sse.URL},
	}
	ts := m.Toolset(t.Context(), "/ws", servers, nil)
	if len(ts.Warnings) > 0 {
		t.Fatalf("warnings %q", ts.Warnings)
	}
	for _, name := range []string{"mcp_h_greet", "mcp_s_greet"} {
		res := callTool(t, toolNamed(t, ts, name), `{"name": "Ada"}`)
		if res.IsError || res.Output != `{"greeting":"hello, Ada"}` {
			t.Errorf("%s: %+v", name, res)
		}
	}
	found := false
	for _, h := range g.headers() {
		found = found || h == "Bearer t0ken"
	}
	if !found {
		t.Errorf("the HTTP server never got the header: %q", g.headers())
	}

	// A tool the server adds reaches the next run.
	mcp.AddTool(g.server, &mcp.Tool{Name: "wave", Description: "Waves."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, greeting, error) {
			return nil, greeting{Greeting: "👋 " + in.Name}, nil
		})
	c, _ := m.conn("/ws", servers[0])
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.stale }, "the tool list change")
	ts = m.Toolset(t.Context(), "/ws", servers, nil)
	if res := callTool(t, toolNamed(t, ts, "mcp_h_wave"), `{"name": "Ada"}`); res.Output != `{"greeting":"👋 Ada"}` {
		t.Errorf("wave: %+v", res)
	}
}
