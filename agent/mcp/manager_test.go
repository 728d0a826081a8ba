package mcp

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
)

// fake is a server definition of the fake server in the given mode.
func fake(t *testing.T, name, mode string, env map[string]string) Server {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{"AGENTLS_FAKE_MCP": mode}
	for k, v := range env {
		e[k] = v
	}
	return Server{Name: name, Transport: "stdio", Command: exe, Env: e, Dir: t.TempDir()}
}

// newManager returns a manager whose environment holds a secret, closed
// when the test ends.
func newManager(t *testing.T) *Manager {
	t.Helper()
	m := New(Config{Environ: append(os.Environ(), "FAKE_API_KEY=sk-abcdefghijklmnop", "PLAIN_VAR=plain",
		"HOLDS_SECRET=prefix-model-key-value-suffix"), Secrets: []string{"model-key-value"}, Version: "test"})
	t.Cleanup(func() { m.Close() })
	return m
}

// toolNamed returns the tool of ts called name.
func toolNamed(t *testing.T, ts *Toolset, name string) agent.Tool {
	t.Helper()
	for _, tl := range ts.Tools {
		if tl.Declaration().Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s among %v (warnings %q)", name, names(ts), ts.Warnings)
	return nil
}

func names(ts *Toolset) []string {
	var out []string
	for _, tl := range ts.Tools {
		out = append(out, tl.Declaration().Name)
	}
	return out
}

// callTool runs a tool the way the harness does, and collects the events
// the call emits.
func callTool(t *testing.T, tl agent.Tool, args string) agent.Result {
	t.Helper()
	res, err := tl.Run(t.Context(), &agent.Call{ID: "c1", Name: tl.Declaration().Name, Args: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("%s: %v", tl.Declaration().Name, err)
	}
	return res
}

func TestToolsetDeclaresAndCalls(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	srv := fake(t, "my db", "ok", map[string]string{"PASSED_KEY": "$FAKE_API_KEY"})
	srv.ExcludeTools = []string{"slow"}
	srv.Trust = true
	ts := m.Toolset(t.Context(), "/ws", []Server{srv}, []string{"read_file"})
	if len(ts.Warnings) > 0 {
		t.Fatalf("warnings: %q", ts.Warnings)
	}
	want := []string{"mcp_my_db_echo", "mcp_my_db_env", "mcp_my_db_pid", "mcp_my_db_big", "mcp_my_db_die", "mcp_my_db_garbage",
		"mcp_my_db_fail", "mcp_my_db_mixed", "mcp_my_db_child"}
	if diff := cmp.Diff(want, names(ts)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	echo := toolNamed(t, ts, "mcp_my_db_echo")
	decl := echo.Declaration()
	schema, _ := json.Marshal(decl.ParametersJsonSchema)
	if decl.Description != "Echoes text." || !sameJSON(string(schema), map[string]any{"type": "object",
		"properties": map[string]any{"text": map[string]any{"type": "string"}}, "required": []any{"text"}}) {
		t.Errorf("declaration %q %s", decl.Description, schema)
	}
	if !echo.(agent.Trusted).Trusted() {
		t.Error("a trusted server's tool is not trusted")
	}
	ap, err := echo.(agent.Approvable).Approval(json.RawMessage(`{ "text" : "hi\u202e" }`))
	if err != nil || ap.Server != "my db" || ap.ServerTool != "echo" || string(ap.Args) != `{"text":"hi\u202e"}` || ap.Rule != "my db tool echo" {
		t.Errorf("approval %+v %v", ap, err)
	}
	if _, err := echo.(agent.Approvable).Approval(json.RawMessage(`["x"]`)); err == nil {
		t.Error("arguments that are not an object are approvable")
	}

	if res := callTool(t, echo, `{"text": "hello"}`); res.Output != "hello" || res.IsError {
		t.Errorf("echo: %+v", res)
	}
	env := callTool(t, toolNamed(t, ts, "mcp_my_db_env"), `{}`).Output
	for _, leak := range []string{"FAKE_API_KEY=", "HOLDS_SECRET="} {
		if strings.Contains(env, leak) {
			t.Errorf("the server saw %s", leak)
		}
	}
	if !strings.Contains(env, "PLAIN_VAR=plain") || !strings.Contains(env, "PASSED_KEY=sk-abcdefghijklmnop") {
		t.Errorf("the server's environment lacks what it should have:\n%s", env)
	}
	res := callTool(t, toolNamed(t, ts, "mcp_my_db_mixed"), `{}`)
	wantMixed := "{\"temperature\":21}\n[an image (image/png, 5 bytes): not shown to the model]\n" +
		"[a link to the resource file:///tmp/report.pdf (report): not fetched]\n[the resource mem://notes (text/plain), 12 bytes: not inlined]"
	if res.Output != wantMixed {
		t.Errorf("mixed: %q, want %q", res.Output, wantMixed)
	}
	if res := callTool(t, toolNamed(t, ts, "mcp_my_db_fail"), `{}`); !res.IsError || res.Output != "the tool reported an error: no such row" {
		t.Errorf("fail: %+v", res)
	}
	big := callTool(t, toolNamed(t, ts, "mcp_my_db_big"), `{}`)
	if len(big.Output) > MaxOutput+200 || !strings.HasSuffix(big.Output, "[… 10420224 of 10485760 bytes cut: the result is longer than agentls passes on]") {
		t.Errorf("10 MB result: %d bytes, ends %q", len(big.Output), big.Output[max(0, len(big.Output)-120):])
	}
	if res := callTool(t, echo, `{"text": "still here"}`); res.Output != "still here" {
		t.Errorf("after the big result: %+v", res)
	}
}

// One process per server per folder: runs reuse it; another folder has
// its own; changed settings start a new one.
func TestToolsetReuses(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	srv := fake(t, "s", "ok", nil)
	pid := func(folder string, srv Server) string {
		ts := m.Toolset(t.Context(), folder, []Server{srv}, nil)
		return callTool(t, toolNamed(t, ts, "mcp_s_pid"), `{}`).Output
	}
	a1, a2, b := pid("/a", srv), pid("/a", srv), pid("/b", srv)
	if a1 != a2 || a1 == b {
		t.Errorf("pids: /a %s then %s, /b %s", a1, a2, b)
	}
	srv.Args = []string{"changed"}
	if a3 := pid("/a", srv); a3 == a1 {
		t.Error("changed settings reuse the old process")
	}
}

func TestToolsetStartFailures(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	hang := fake(t, "hang", "hang", nil)
	hang.Timeout = 300 * time.Millisecond
	missing := Server{Name: "missing", Transport: "stdio", Command: "agentls-no-such-server", Dir: t.TempDir()}
	servers := []Server{fake(t, "exit", "exit", nil), hang, fake(t, "garbage", "garbage", nil), missing, fake(t, "ok", "ok", nil)}
	ts := m.Toolset(t.Context(), "/ws", servers, nil)
	if len(ts.Tools) == 0 || ts.Tools[0].Declaration().Name != "mcp_ok_echo" {
		t.Errorf("the good server's tools: %v", names(ts))
	}
	want := []string{
		`MCP server "exit" did not start: ` + "…" + `(its stderr ends: fake: cannot open the database); the run goes on without its tools`,
		`MCP server "garbage" did not start: ` + "…",
		`MCP server "hang" did not start: no answer within 300ms; the run goes on without its tools`,
		`MCP server "missing" did not start: exec: "agentls-no-such-server": executable file not found in $PATH; the run goes on without its tools`,
	}
	if len(ts.Warnings) != len(want) {
		t.Fatalf("warnings %q", ts.Warnings)
	}
	for i, w := range want {
		head, tail, _ := strings.Cut(w, "…")
		if got := ts.Warnings[i]; !strings.HasPrefix(got, head) || !strings.HasSuffix(got, tail) {
			t.Errorf("warning %d: %q, want %q", i, got, w)
		}
	}
	// Reported once: a later run is not told again, and nothing is retried.
	again := m.Toolset(t.Context(), "/ws", servers, nil)
	if len(again.Warnings) > 0 || !slices.Equal(names(again), names(ts)) {
		t.Errorf("second run: warnings %q, tools %v", again.Warnings, names(again))
	}
}

// A server that dies during a call, or breaks the protocol, is started
// again once per run; the call says it may or may not have taken effect.
func TestToolRestartsOncePerRun(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	srv := fake(t, "s", "ok", nil)
	ts := m.Toolset(t.Context(), "/ws", []Server{srv}, nil)
	pid, die := toolNamed(t, ts, "mcp_s_pid"), toolNamed(t, ts, "mcp_s_die")
	first := callTool(t, pid, `{}`).Output
	res := callTool(t, die, `{}`)
	if !res.IsError || !strings.Contains(res.Output, `MCP server "s" stopped during the call`) ||
		!strings.Contains(res.Output, "may or may not have taken effect") || !strings.HasSuffix(res.Output, "The server was started again.") {
		t.Errorf("die: %+v", res)
	}
	second := callTool(t, pid, `{}`).Output
	if second == first || second == "" {
		t.Errorf("pids %s then %s: not started again", first, second)
	}
	res = callTool(t, toolNamed(t, ts, "mcp_s_garbage"), `{}`)
	if !res.IsError || !strings.Contains(res.Output, "is started again only once per run") {
		t.Errorf("a second stop in the run: %+v", res)
	}
	if res := callTool(t, pid, `{}`); !res.IsError || !strings.Contains(res.Output, "is not running") {
		t.Errorf("after the second stop: %+v", res)
	}
	// The next run starts it again.
	ts2 := m.Toolset(t.Context(), "/ws", []Server{srv}, nil)
	if third := callTool(t, toolNamed(t, ts2, "mcp_s_pid"), `{}`).Output; third == second || strings.Contains(third, "not running") {
		t.Errorf("the next run: %q", third)
	}
}

func TestToolCallTimeout(t *testing.T) {
	t.Parallel()
	m := New(Config{CallTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { m.Close() })
	srv := fake(t, "s", "ok", nil)
	ts := m.Toolset(t.Context(), "/ws", []Server{srv}, nil)
	res := callTool(t, toolNamed(t, ts, "mcp_s_slow"), `{}`)
	if !res.IsError || res.Output != `MCP server "s" did not answer within 200ms; the call may or may not have taken effect` {
		t.Errorf("slow: %+v", res)
	}
	if res := callTool(t, toolNamed(t, ts, "mcp_s_echo"), `{"text": "x"}`); res.Output != "x" {
		t.Errorf("after a slow call: %+v", res)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := toolNamed(t, ts, "mcp_s_echo").Run(ctx, &agent.Call{Args: json.RawMessage(`{"text":"x"}`)}); err == nil {
		t.Error("a cancelled run's call goes on")
	}
}

// Tools with a bad schema, or a name another tool has, are left out and
// reported; the others stay.
func TestToolsetLeavesOut(t *testing.T) {
	t.Parallel()
	m := newManager(t)
	obj := `{"type": "object"}`
	tools := `[
	 {"name": "ok", "inputSchema": ` + obj + `},
	 {"name": "not an object", "inputSchema": {"type": "string"}},
	 {"name": "bad pattern", "inputSchema": {"type": "object", "properties": {"a": {"type": "string", "pattern": "("}}}},
	 {"name": "no schema", "inputSchema": "x"},
	 {"name": "a b", "inputSchema": ` + obj + `},
	 {"name": "a_b", "inputSchema": ` + obj + `},
	 {"name": "read_file", "inputSchema": ` + obj + `}]`
	s := fake(t, "s", "ok", map[string]string{"AGENTLS_FAKE_TOOLS": tools})
	s_x := fake(t, "s_a", "ok", map[string]string{"AGENTLS_FAKE_TOOLS": `[{"name": "b", "inputSchema": ` + obj + `}]`})
	ts := m.Toolset(t.Context(), "/ws", []Server{s_x, s}, []string{"mcp_s_read_file"})
	if diff := cmp.Diff([]string{"mcp_s_ok", "mcp_s_a_b"}, names(ts)); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	want := []string{
		`MCP server "s": tool "not an object" is left out: its input schema is not valid: its type is not "object"`,
		`MCP server "s": tool "bad pattern" is left out: its input schema is not valid: `,
		`MCP server "s": tool "no schema" is left out: its input schema is not valid: "x" is not a JSON object`,
		`MCP server "s": tool "a_b" is left out: its name mcp_s_a_b is taken by tool "a b" of MCP server "s"`,
		`MCP server "s": tool "read_file" is left out: its name mcp_s_read_file is taken by a built-in tool`,
		`MCP server "s_a": tool "b" is left out: its name mcp_s_a_b is taken by tool "a b" of MCP server "s"`,
	}
	if len(ts.Warnings) != len(want) {
		t.Fatalf("warnings:\n%s", strings.Join(ts.Warnings, "\n"))
	}
	for i, w := range want {
		if !strings.HasPrefix(ts.Warnings[i], w) {
			t.Errorf("warning %d: %q, want %q…", i, ts.Warnings[i], w)
		}
	}
}

// Close ends every server with its process group: what a server started
// does not outlive agentls.
func TestCloseKillsTheProcessGroup(t *testing.T) {
	t.Parallel()
	m := New(Config{})
	ts := m.Toolset(t.Context(), "/ws", []Server{fake(t, "s", "ok", nil)}, nil)
	child, _ := strconv.Atoi(callTool(t, toolNamed(t, ts, "mcp_s_child"), `{}`).Output)
	server, _ := strconv.Atoi(callTool(t, toolNamed(t, ts, "mcp_s_pid"), `{}`).Output)
	if child == 0 || !running(child) || !running(server) {
		t.Fatalf("child %d, server %d not running", child, server)
	}
	m.Close()
	waitFor(t, func() bool { return !running(child) && !running(server) }, "the server and its child to end")
	if ts := m.Toolset(t.Context(), "/ws", []Server{fake(t, "s", "ok", nil)}, nil); len(ts.Tools) > 0 {
		t.Error("a closed manager starts servers")
	}
}

// waitFor waits, at most ten seconds, for cond: the end of a process is
// an event the kernel gives no other way to wait for here.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestToolName(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 40)
	tests := []struct{ server, tool, want string }{
		{"fs", "read_file", "mcp_fs_read_file"},
		{"my server", "get/data:v1", "mcp_my_server_get_data_v1"},
		{"ünï", "a.b-c", "mcp__n__a.b-c"},
		{long, long, "mcp_" + long[:26] + "..." + long[10:]},
	}
	for _, tt := range tests {
		got := ToolName(tt.server, tt.tool)
		if got != tt.want || len(got) > 63 {
			t.Errorf("ToolName(%q, %q) = %q (%d), want %q", tt.server, tt.tool, got, len(got), tt.want)
		}
	}
}

func TestOffline(t *testing.T) {
	t.Parallel()
	d := Decl{Name: "mcp_fs_write", Server: "fs", Tool: "write", Description: "Writes.", Parameters: json.RawMessage(`{"type":"object"}`), Trusted: true}
	tl := Offline(d)
	if tl.Declaration().Name != d.Name || !tl.(agent.Trusted).Trusted() {
		t.Errorf("offline tool %+v", tl.Declaration())
	}
	if res := callTool(t, tl, `{}`); !res.IsError {
		t.Errorf("an offline tool ran: %+v", res)
	}
}
