// Package mcptest gives tests real MCP servers, in the manner of
// net/http/httptest: the servers from npm that .ci/mcp.sh installs
// (@modelcontextprotocol/server-everything and server-filesystem), and a
// server of the Go SDK in the test's process, over streamable HTTP on
// loopback.
package mcptest

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// RequireEnv, set to 1 (as CI does), makes a test that needs the npm
// servers fail where they are not installed, instead of skipping.
const RequireEnv = "AGENTLS_REQUIRE_MCP"

// Bin returns the program of the npm server name ("mcp-server-everything",
// "mcp-server-filesystem") that .ci/mcp.sh installed. Where it is not, or
// node is not on PATH, the test skips, or fails under RequireEnv=1.
func Bin(t testing.TB, name string) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	bin := filepath.Join(filepath.Dir(file), "..", "testdata", "npm", "node_modules", ".bin", name)
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if statErr == nil && nodeErr == nil {
		return bin
	}
	msg := "the MCP servers from npm are not installed (run .ci/mcp.sh)"
	if nodeErr != nil {
		msg = "node is not on PATH"
	}
	if os.Getenv(RequireEnv) == "1" {
		t.Fatalf("%s, and %s=1", msg, RequireEnv)
	}
	t.Skip(msg)
	return ""
}

// A Server is an MCP server of the Go SDK in the test's process: it greets
// (greet, structured content) and keeps notes (note, a side effect that
// Notes shows).
type Server struct {
	URL string

	mu    sync.Mutex
	notes []string
}

type noteArgs struct {
	Text string `json:"text" jsonschema:"the note"`
}

type greetArgs struct {
	Name string `json:"name" jsonschema:"who to greet"`
}

type greeting struct {
	Greeting string `json:"greeting"`
}

// NewServer starts a Server on loopback, closed when the test ends.
func NewServer(t testing.TB) *Server {
	t.Helper()
	s := &Server{}
	srv := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greets someone."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetArgs) (*mcp.CallToolResult, greeting, error) {
			return nil, greeting{Greeting: "hello, " + in.Name}, nil
		})
	mcp.AddTool(srv, &mcp.Tool{Name: "note", Description: "Keeps a note."},
		func(ctx context.Context, req *mcp.CallToolRequest, in noteArgs) (*mcp.CallToolResult, any, error) {
			s.mu.Lock()
			s.notes = append(s.notes, in.Text)
			s.mu.Unlock()
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(func() {
		hs.CloseClientConnections()
		hs.Close()
	})
	s.URL = hs.URL
	return s
}

// Notes are the notes the server was asked to keep.
func (s *Server) Notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.notes...)
}
