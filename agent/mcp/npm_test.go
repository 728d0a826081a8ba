package mcp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/mcp/mcptest"
)

// Against @modelcontextprotocol/server-everything, over stdio: its tools
// are declared with their schemas as they are, a call answers, its
// environment holds no secret but the one its settings pass, an image is
// named and not inlined, structured content arrives; killed, it is started
// again once in the run.
func TestEverythingServer(t *testing.T) {
	t.Parallel()
	bin := mcptest.Bin(t, "mcp-server-everything")
	m := newManager(t)
	srv := Server{Name: "everything", Transport: "stdio", Command: bin, Args: []string{"stdio"}, Dir: t.TempDir(),
		Env: map[string]string{"PASSED_KEY": "${FAKE_API_KEY}"}}
	ts := m.Toolset(t.Context(), "/ws", []Server{srv}, nil)
	if len(ts.Warnings) > 0 {
		t.Fatalf("warnings %q", ts.Warnings)
	}
	echo := toolNamed(t, ts, "mcp_everything_echo")
	var schema map[string]any
	b, _ := json.Marshal(echo.Declaration().ParametersJsonSchema)
	json.Unmarshal(b, &schema)
	if schema["$schema"] == nil || schema["required"] == nil {
		t.Errorf("the echo schema was not passed as it is: %s", b)
	}
	if res := callTool(t, echo, `{"message": "hello"}`); res.Output != "Echo: hello" || res.IsError {
		t.Errorf("echo: %+v", res)
	}
	env := callTool(t, toolNamed(t, ts, "mcp_everything_get-env"), `{}`).Output
	if strings.Contains(env, "FAKE_API_KEY") || strings.Contains(env, "HOLDS_SECRET") || !strings.Contains(env, `"PASSED_KEY": "sk-abcdefghijklmnop"`) {
		t.Errorf("the server's environment:\n%s", env)
	}
	img := callTool(t, toolNamed(t, ts, "mcp_everything_get-tiny-image"), `{}`).Output
	if !strings.Contains(img, "[an image (image/png, ") || !strings.Contains(img, "not shown to the model]") || len(img) > 1000 {
		t.Errorf("image: %q", img)
	}
	weather := callTool(t, toolNamed(t, ts, "mcp_everything_get-structured-content"), `{"location": "Chicago"}`).Output
	if !strings.Contains(weather, `"temperature"`) {
		t.Errorf("structured content: %q", weather)
	}
	if res := callTool(t, echo, `{}`); !res.IsError {
		t.Errorf("a call without its required argument: %+v", res)
	}

	// Killed between calls: the next call starts it again, once.
	kill(t, m, "/ws", srv)
	if res := callTool(t, echo, `{"message": "again"}`); res.Output != "Echo: again" {
		t.Errorf("after a kill: %+v", res)
	}
	kill(t, m, "/ws", srv)
	if res := callTool(t, echo, `{"message": "twice"}`); !res.IsError || !strings.Contains(res.Output, "only once per run") {
		t.Errorf("after a second kill: %+v", res)
	}
}

// kill kills a running server's process group and waits until its
// connection knows.
func kill(t *testing.T, m *Manager, folder string, srv Server) {
	t.Helper()
	c, err := m.conn(folder, srv)
	if err != nil {
		t.Fatal(err)
	}
	c.mu.Lock()
	proc := c.proc
	c.mu.Unlock()
	if proc == nil {
		t.Fatal("the server is not running")
	}
	proc.kill()
	waitFor(t, func() bool { c.mu.Lock(); defer c.mu.Unlock(); return c.session == nil }, "the connection to end")
}

// Against @modelcontextprotocol/server-filesystem, over stdio, on a folder
// of its own: it reads, it writes to disk, and a path outside its folder
// is an error the model reads.
func TestFilesystemServer(t *testing.T) {
	t.Parallel()
	bin := mcptest.Bin(t, "mcp-server-filesystem")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("line one\nline two\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newManager(t)
	srv := Server{Name: "fs", Transport: "stdio", Command: bin, Args: []string{dir}, Dir: dir, IncludeTools: []string{"read_text_file", "write_file"}}
	ts := m.Toolset(t.Context(), dir, []Server{srv}, nil)
	if got := names(ts); strings.Join(got, ",") != "mcp_fs_read_text_file,mcp_fs_write_file" {
		t.Fatalf("tools %v, warnings %q", got, ts.Warnings)
	}
	read := toolNamed(t, ts, "mcp_fs_read_text_file")
	if res := callTool(t, read, `{"path": "`+filepath.Join(dir, "notes.txt")+`"}`); res.Output != "line one\nline two\n" {
		t.Errorf("read: %+v", res)
	}
	res := callTool(t, toolNamed(t, ts, "mcp_fs_write_file"), `{"path": "`+filepath.Join(dir, "new.txt")+`", "content": "written"}`)
	if res.IsError {
		t.Errorf("write: %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "new.txt")); string(b) != "written" {
		t.Errorf("new.txt: %q, %v", b, err)
	}
	if res := callTool(t, read, `{"path": "/etc/hostname"}`); !res.IsError || !strings.Contains(res.Output, "the tool reported an error") {
		t.Errorf("outside its folder: %+v", res)
	}
	var _ agent.Tool = read
}
