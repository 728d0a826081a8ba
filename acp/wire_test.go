package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/acp"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
)

// A raw client writes lines to the server and reads its answers.
type raw struct {
	t   *testing.T
	in  *io.PipeWriter
	out *bufio.Reader
}

func startRaw(t *testing.T) *raw {
	t.Helper()
	srv := acp.New(acp.Config{Host: &runner.Host{}, Settings: contract.DefaultSettings(), Version: "test",
		Logger: slog.New(slog.DiscardHandler)})
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(context.Background(), c2sR, s2cW)
		s2cW.Close()
	}()
	t.Cleanup(func() {
		c2sW.Close()
		go io.Copy(io.Discard, s2cR)
		<-done
	})
	return &raw{t: t, in: c2sW, out: bufio.NewReader(s2cR)}
}

type response struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// call sends a line and reads the next answer (this package's requests
// here send no notifications first).
func (r *raw) call(line string) response {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
	text, err := r.out.ReadString('\n')
	if err != nil {
		r.t.Fatal(err)
	}
	var resp response
	if err := json.Unmarshal([]byte(text), &resp); err != nil {
		r.t.Fatalf("answer %q: %v", text, err)
	}
	return resp
}

func request(id int, method string, params string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
}

// Bad input gets a clear JSON-RPC error, and the server goes on serving.
func TestBadInput(t *testing.T) {
	t.Parallel()
	r := startRaw(t)
	dir := filepath.ToSlash(t.TempDir())
	for _, tc := range []struct {
		name, line string
		id         string
		code       int
		msg        string
	}{
		{"not JSON", `{"jsonrpc":"2.0","id":1,"method":`, "null", -32700, "Parse error"},
		{"a batch", `[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, "null", -32600, "batches are not supported"},
		{"no method", `{"jsonrpc":"2.0","id":2}`, "2", -32600, "needs a method"},
		{"a method that is no string", `{"jsonrpc":"2.0","id":3,"method":7}`, "3", -32600, "method must be a non-empty string"},
		{"an id that is an object", `{"jsonrpc":"2.0","id":{},"method":"initialize"}`, "null", -32600, "id must be"},
		{"before initialize", request(4, "session/new", `{"cwd":"`+dir+`","mcpServers":[]}`), "4", -32600, "send initialize first"},
		{"unknown method", request(5, "session/fly", `{}`), "5", -32601, "Method not found"},
		{"bad params", request(6, "initialize", `{"protocolVersion":"one"}`), "6", -32602, "Invalid params"},
		{"initialize", request(7, "initialize", `{"protocolVersion":1}`), "7", 0, ""},
		{"relative cwd", request(8, "session/new", `{"cwd":"rel","mcpServers":[]}`), "8", -32602, "cwd must be an absolute path"},
		{"missing cwd", request(9, "session/new", `{"cwd":"/nonexistent/agentls-test","mcpServers":[]}`), "9", -32602, "cwd:"},
		{"unknown session", request(10, "session/prompt", `{"sessionId":"nope","prompt":[{"type":"text","text":"hi"}]}`), "10", -32602, `unknown session "nope"`},
		{"cancel of an unknown session", request(11, "session/cancel", `{"sessionId":"nope"}`), "11", -32602, `unknown session "nope"`},
		{"load", request(12, "session/load", `{"sessionId":"nope","cwd":"`+dir+`","mcpServers":[]}`), "12", -32601, "session/load is not supported"},
		{"authenticate", request(13, "authenticate", `{"methodId":"x"}`), "13", -32602, "no authentication methods"},
	} {
		resp := r.call(tc.line)
		switch {
		case string(resp.ID) != tc.id:
			t.Errorf("%s: id %s, want %s", tc.name, resp.ID, tc.id)
		case tc.code == 0 && resp.Error != nil:
			t.Errorf("%s: error %+v", tc.name, resp.Error)
		case tc.code != 0 && (resp.Error == nil || resp.Error.Code != tc.code || !strings.Contains(resp.Error.Message, tc.msg)):
			t.Errorf("%s: error %+v, want %d %q", tc.name, resp.Error, tc.code, tc.msg)
		}
	}
}

// A session's bad requests: unsupported prompt content, unknown modes,
// models and options.
func TestBadSessionRequests(t *testing.T) {
	t.Parallel()
	r := startRaw(t)
	dir := t.TempDir()
	r.call(request(1, "initialize", `{"protocolVersion":1}`))
	resp := r.call(request(2, "session/new", fmt.Sprintf(`{"cwd":%q,"mcpServers":[]}`, dir)))
	var s struct {
		SessionID string `json:"sessionId"`
	}
	if err := json.Unmarshal(resp.Result, &s); err != nil || s.SessionID == "" {
		t.Fatalf("session/new: %s %+v", resp.Result, resp.Error)
	}
	sid := fmt.Sprintf("%q", s.SessionID)
	for _, tc := range []struct {
		name, method, params, msg string
	}{
		{"an image", "session/prompt", `{"sessionId":` + sid + `,"prompt":[{"type":"image","mimeType":"image/png","data":"AA=="}]}`, "does not take images"},
		{"audio", "session/prompt", `{"sessionId":` + sid + `,"prompt":[{"type":"audio","mimeType":"audio/wav","data":"AA=="}]}`, "does not take audio"},
		{"a binary resource", "session/prompt", `{"sessionId":` + sid + `,"prompt":[{"type":"resource","resource":{"uri":"file:///x.bin","blob":"AA=="}}]}`, "text resources only"},
		{"an empty prompt", "session/prompt", `{"sessionId":` + sid + `,"prompt":[]}`, "the prompt is empty"},
		{"an unknown mode", "session/set_mode", `{"sessionId":` + sid + `,"modeId":"yolo"}`, `mode "yolo" is not one of`},
		{"an unknown model", "session/set_config_option", `{"sessionId":` + sid + `,"configId":"model","value":"gpt"}`, `model "gpt" is not one of`},
		{"an unknown option", "session/set_config_option", `{"sessionId":` + sid + `,"configId":"speed","value":"x"}`, `unknown config option "speed"`},
		{"a boolean option", "session/set_config_option", `{"sessionId":` + sid + `,"configId":"mode","type":"boolean","value":true}`, "no boolean config options"},
	} {
		resp := r.call(request(3, tc.method, tc.params))
		if resp.Error == nil || resp.Error.Code != -32602 || !strings.Contains(resp.Error.Message, tc.msg) {
			t.Errorf("%s: %s %+v, want invalid params %q", tc.name, resp.Result, resp.Error, tc.msg)
		}
	}
}

// A message over MaxMessage is answered with an error and dropped; the
// server goes on.
func TestMessageTooLong(t *testing.T) {
	t.Parallel()
	r := startRaw(t)
	long := request(1, "initialize", `{"protocolVersion":1,"_meta":{"pad":"`+strings.Repeat("x", acp.MaxMessage)+`"}}`)
	if resp := r.call(long); resp.Error == nil || resp.Error.Code != -32600 || !strings.Contains(resp.Error.Message, "longer than") {
		t.Errorf("a long message: %+v", resp.Error)
	}
	if resp := r.call(request(2, "initialize", `{"protocolVersion":1}`)); resp.Error != nil || string(resp.ID) != "2" {
		t.Errorf("initialize after it: %+v", resp)
	}
}
