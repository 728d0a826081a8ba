package lsp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/workspace"
)

// The LSP input half of docs/reliability.md's fault matrix, on the wire:
// raw bytes into a server's stdin, as from a broken or hostile client. After
// each fault the server answers what it must (an error response, or
// nothing for a notification), leaves the files alone, and still serves a
// normal request.
func TestWireFaults(t *testing.T) {
	t.Parallel()
	codeAction := func(id int, uri string) string {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"textDocument/codeAction","params":{"textDocument":{"uri":%q},`+
			`"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"context":{"diagnostics":[]}}}`, id, uri)
	}
	valid := codeAction(50, "file:///w/main.go")
	tests := []struct {
		name    string
		uninit  bool   // send the fault before initialize
		fault   string // raw bytes
		reply   string // in the server's first frame after the fault; "" for none
		replyID string // the reply's id
	}{
		// Framing. A malformed header is answered with a parse error and
		// skipped; reading goes on at the next Content-Length header.
		{name: "Content-Length not a number", fault: "Content-Length: ten\r\n\r\n" + valid, reply: `"code":-32700,"message":"invalid message header: bad Content-Length`, replyID: "null"},
		{name: "Content-Length negative", fault: "Content-Length: -5\r\n\r\n" + valid, reply: `"code":-32700`, replyID: "null"},
		{name: "Content-Length zero", fault: "Content-Length: 0\r\n\r\n", reply: `"code":-32700`, replyID: "null"},
		{name: "Content-Length over 1 GiB", fault: "Content-Length: 99999999999\r\n\r\n" + valid, reply: `"code":-32700`, replyID: "null"},
		{name: "Content-Length missing", fault: "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n" + valid, reply: `invalid message header: no Content-Length"`, replyID: "null"},
		{name: "Content-Length shorter than the body", fault: fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(valid)-3, valid), reply: `"code":-32700,"message":"invalid JSON in message body"`, replyID: "null"},
		// The next frame's first bytes complete the body: that frame is lost.
		{name: "Content-Length longer than the body", fault: fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(valid)+10, valid), reply: `"code":-32700,"message":"invalid JSON in message body"`, replyID: "null"},
		{name: "garbage header line", fault: "hello\r\n" + frame(valid), reply: `"result":[`, replyID: "50"},
		{name: "garbage between frames", fault: "\x00\xff garbage" + frame(valid), reply: `"result":[`, replyID: "50"},
		// Bodies.
		{name: "invalid JSON", fault: frame(`{"jsonrpc":"2.0","id":7,"method":`), reply: `"code":-32700`, replyID: "null"},
		{name: "not JSON-RPC 2.0", fault: frame(`{"jsonrpc":"1.0","id":8,"method":"textDocument/codeAction"}`), reply: `"code":-32600,"message":"not a JSON-RPC 2.0 message`, replyID: "8"},
		{name: "JSON but no message", fault: frame(`42`), reply: `"code":-32600`, replyID: "null"},
		{name: "empty batch", fault: frame(`[]`), reply: `"code":-32600`, replyID: "null"},
		{name: "invalid UTF-8 in the method", fault: frame("{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"text\xffDocument/hover\",\"params\":{}}"), reply: `"code":-32601`, replyID: "9"},
		// Parameters.
		{name: "wrong parameter types", fault: frame(`{"jsonrpc":"2.0","id":10,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///w/a.go"},"range":5}}`),
			reply: `"code":-32602,"message":"invalid params for textDocument/codeAction`, replyID: "10"},
		{name: "params not an object", fault: frame(`{"jsonrpc":"2.0","id":11,"method":"workspace/executeCommand","params":"agentls.run"}`), reply: `"code":-32602`, replyID: "11"},
		{name: "wrong parameter types in a notification", fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":3,"text":[]}}}`)},
		{name: "missing params", fault: frame(`{"jsonrpc":"2.0","id":12,"method":"textDocument/codeAction"}`), reply: `"code":-32602`, replyID: "12"},
		// Methods.
		{name: "unknown method", fault: frame(`{"jsonrpc":"2.0","id":13,"method":"agentls/nope","params":{}}`), reply: `"code":-32601`, replyID: "13"},
		// go.lsp.dev/protocol decodes an unknown method's params before it
		// gives up on the method: with none, the answer is InvalidParams.
		{name: "unknown method without params", fault: frame(`{"jsonrpc":"2.0","id":20,"method":"agentls/nope"}`), reply: `"code":-32602`, replyID: "20"},
		{name: "unknown notification", fault: frame(`{"jsonrpc":"2.0","method":"agentls/nope","params":{}}`)},
		{name: "unknown notification with the $ prefix", fault: frame(`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":"verbose"}}`)},
		{name: "broken response", fault: frame(`{"jsonrpc":"2.0","id":5,"error":"oops"}`), reply: `"code":-32600`, replyID: "null"},
		{name: "response to no request", fault: frame(`{"jsonrpc":"2.0","id":99,"result":{"applied":true}}`)},
		{name: "initialize twice", fault: frame(`{"jsonrpc":"2.0","id":14,"method":"initialize","params":{"capabilities":{}}}`), reply: `"code":-32600,"message":"initialize was already received"`, replyID: "14"},
		// Lifecycle.
		{name: "request before initialize", uninit: true, fault: frame(codeAction(15, "file:///w/a.go")), reply: `"code":-32002`, replyID: "15"},
		{name: "notification before initialize", uninit: true, fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///w/main.go","languageId":"go","version":1,"text":"x"}}}`)},
		// Documents.
		{name: "non-file URI", fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"untitled:Untitled-1","languageId":"go","version":1,"text":"x"}}}`) +
			frame(codeAction(16, "untitled:Untitled-1")), reply: `"result":[]`, replyID: "16"},
		{name: "file URI with a host", fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file://server/share/a.go","languageId":"go","version":1,"text":"x"}}}`) +
			frame(codeAction(17, "file://server/share/a.go")), reply: `"result":[]`, replyID: "17"},
		{name: "not a URI", fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"::not a uri::","languageId":"go","version":1,"text":"x"}}}`)},
		{name: "change to a document never opened", fault: frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///w/nope.go","version":2},"contentChanges":[{"text":"x"}]}}`)},
		{name: "positions out of range in a request", fault: frame(`{"jsonrpc":"2.0","id":18,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///w/main.go"},` +
			`"range":{"start":{"line":4000000000,"character":4000000000},"end":{"line":1,"character":0}},"context":{"diagnostics":[]}}}`), reply: `"id":18`, replyID: "18"},
		{name: "negative position", fault: frame(`{"jsonrpc":"2.0","id":19,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///w/main.go"},` +
			`"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}}`), reply: `"code":-32602`, replyID: "19"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			root := t.TempDir()
			main := filepath.Join(root, "main.go")
			if err := os.WriteFile(main, []byte(mainGo), 0o644); err != nil {
				t.Fatal(err)
			}
			w := newWire(t, lsp.Config{UserConfigDir: t.TempDir(), CacheDir: t.TempDir()})
			if !tt.uninit {
				w.initialize(root)
			}
			w.mu.Lock()
			from := len(w.got)
			w.mu.Unlock()
			w.send(tt.fault)
			if tt.uninit {
				w.initialize(root)
			}
			w.alive(main)
			if tt.reply != "" {
				// Requests run concurrently: the fault's answer may come
				// after alive's.
				w.waitFor("the fault's answer", func(m wireMsg) bool {
					return string(m.ID) == tt.replyID && strings.Contains(m.raw, tt.reply)
				})
			}
			w.mu.Lock()
			after := w.got[from:]
			w.mu.Unlock()
			var answers []wireMsg
			for _, m := range after {
				if !w.isAlive(m) && !(tt.uninit && string(m.ID) == "1") {
					answers = append(answers, m)
				}
			}
			if tt.reply == "" && len(answers) > 0 {
				t.Errorf("the fault was answered: %.300s", answers[0].raw)
			}
			matched := false
			for _, m := range answers {
				switch {
				case !matched && strings.Contains(m.raw, tt.reply) && string(m.ID) == tt.replyID:
					matched = true
				case string(m.ID) == "null" && m.Error != nil && m.Error.Code == -32700:
					// The rest of a frame the fault broke.
				default:
					t.Errorf("unexpected answer: %.300s", m.raw)
				}
			}
			if tt.reply != "" && !matched {
				t.Errorf("no answer with id %s and %s", tt.replyID, tt.reply)
			}
			if b, err := os.ReadFile(main); err != nil || string(b) != mainGo {
				t.Errorf("main.go on disk = %q, %v", b, err)
			}
		})
	}
}

// newModelWire is a wire whose server reaches a fake model playing turns.
func newModelWire(t *testing.T, turns ...geminitest.Turn) (*wire, *geminitest.Server) {
	t.Helper()
	gem := geminitest.NewServer(t, turns...)
	w := newWire(t, lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model, Getenv: func(string) string { return "" }})
		},
		UserConfigDir: t.TempDir(), CacheDir: t.TempDir(),
	})
	return w, gem
}

// runReadOnly starts a run over the wire (the client declares nothing, so
// the run is read-only and its progress comes as log lines) and waits for
// its end.
func (w *wire) runReadOnly(prompt string) string {
	w.t.Helper()
	args, _ := json.Marshal(map[string]string{"prompt": prompt})
	m := w.call("workspace/executeCommand", `{"command":"agentls.run","arguments":[`+string(args)+`]}`)
	if m.Error != nil {
		w.t.Fatalf("agentls.run: %s", m.raw)
	}
	end := w.waitFor("the run's end", func(m wireMsg) bool {
		return m.Method == "window/logMessage" && strings.Contains(string(m.Params), ": finished: ")
	})
	return string(end.Params)
}

// A 50 MB document opens, takes changes and is read by a run in bounded
// pieces, while the server keeps answering.
func TestLargeDocument(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("50 MB over a pipe")
	}
	w, gem := newModelWire(t,
		geminitest.Reply(geminitest.Call("read_file", map[string]any{"file_path": "big.go", "offset": 999000, "limit": 3})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "read it"})))
	root := t.TempDir()
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	w.initialize(root)

	var doc strings.Builder
	for i := range 1_000_000 {
		fmt.Fprintf(&doc, "\tx%07d := compute(%07d) // 日本 line ….\n", i, i) // 50 bytes a line
	}
	text := doc.String()
	if len(text) != 50_000_000 {
		t.Fatalf("document is %d bytes", len(text))
	}
	uri := string(workspace.URIFromPath(filepath.Join(root, "big.go")))
	open, _ := json.Marshal(map[string]any{"textDocument": map[string]any{"uri": uri, "languageId": "go", "version": 1, "text": text}})
	w.notify("textDocument/didOpen", string(open))
	w.alive(main)
	// An incremental change at the very end.
	w.notify("textDocument/didChange", `{"textDocument":{"uri":"`+uri+`","version":2},"contentChanges":[`+
		`{"range":{"start":{"line":1000000,"character":0},"end":{"line":1000000,"character":0}},"text":"// end\n"}]}`)
	w.alive(main)

	end := w.runReadOnly("read the end of big.go")
	if !strings.Contains(end, "read it") {
		t.Errorf("run end: %s", end)
	}
	reqs := gem.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d", len(reqs))
	}
	resp, _ := json.Marshal(reqs[1].Contents[len(reqs[1].Contents)-1])
	if !strings.Contains(string(resp), "x0999000") || !strings.Contains(string(resp), "x0999002") || strings.Contains(string(resp), "x0998999") {
		t.Errorf("read_file told the model %.500s", resp)
	}
	if n := len(reqs[1].Body); n > 64<<10 {
		t.Errorf("the model's second request is %d bytes", n)
	}
}

// Invalid UTF-8 in a document (raw bytes, as Neovim may send a buffer in
// another encoding, or an escaped lone surrogate) is read as U+FFFD, one
// character each, and positions after it still land where the editor meant.
func TestInvalidUTF8Document(t *testing.T) {
	t.Parallel()
	w, gem := newModelWire(t,
		geminitest.Reply(geminitest.Call("read_file", map[string]any{"file_path": "raw.go"}), geminitest.Call("read_file", map[string]any{"file_path": "esc.go"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "read them"})))
	root := t.TempDir()
	main := filepath.Join(root, "main.go")
	os.WriteFile(main, []byte(mainGo), 0o644)
	w.initialize(root)
	raw := string(workspace.URIFromPath(filepath.Join(root, "raw.go")))
	esc := string(workspace.URIFromPath(filepath.Join(root, "esc.go")))
	w.notify("textDocument/didOpen", `{"textDocument":{"uri":"`+raw+`","languageId":"go","version":1,"text":"a`+"\xff\xfe"+`b\n"}}`)
	w.notify("textDocument/didOpen", `{"textDocument":{"uri":"`+esc+`","languageId":"go","version":1,"text":"c\udc80d\n"}}`)
	// Insert after the invalid bytes: UTF-16 character 3 is after "a" and
	// two U+FFFD.
	w.notify("textDocument/didChange", `{"textDocument":{"uri":"`+raw+`","version":2},"contentChanges":[`+
		`{"range":{"start":{"line":0,"character":3},"end":{"line":0,"character":3}},"text":"X"}]}`)
	w.alive(main)
	w.runReadOnly("read raw.go and esc.go")
	reqs := gem.Requests()
	if len(reqs) != 2 {
		t.Fatalf("model requests = %d", len(reqs))
	}
	resp, _ := json.Marshal(reqs[1].Contents[len(reqs[1].Contents)-1])
	for _, want := range []string{"a\ufffd\ufffdXb", "c\ufffdd"} {
		if !strings.Contains(string(resp), want) {
			t.Errorf("read_file did not give %q: %.600s", want, resp)
		}
	}
}

// shutdown, then exit: requests are refused, notifications ignored, and
// exit ends Serve with the code the spec asks for; exit without shutdown
// ends it too, with code 1.
func TestShutdownExitOnTheWire(t *testing.T) {
	t.Parallel()
	for _, shutdown := range []bool{true, false} {
		t.Run(fmt.Sprintf("shutdown=%v", shutdown), func(t *testing.T) {
			t.Parallel()
			codes := make(chan int, 1)
			w := newWire(t, lsp.Config{UserConfigDir: t.TempDir(), CacheDir: t.TempDir(), Exit: func(code int) { codes <- code }})
			root := t.TempDir()
			w.initialize(root)
			want := 1
			if shutdown {
				want = 0
				if m := w.call("shutdown", ""); m.Error != nil {
					t.Fatalf("shutdown: %s", m.raw)
				}
				m := w.call("textDocument/codeAction", `{"textDocument":{"uri":"file:///w/a.go"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"context":{"diagnostics":[]}}`)
				if m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "after shutdown") {
					t.Errorf("request after shutdown = %s", m.raw)
				}
				w.notify("textDocument/didOpen", `{"textDocument":{"uri":"file:///w/a.go","languageId":"go","version":1,"text":"x"}}`)
			}
			w.send(frame(`{"jsonrpc":"2.0","method":"exit"}`))
			if got := <-codes; got != want {
				t.Errorf("exit code = %d, want %d", got, want)
			}
			if !w.exited(10 * time.Second) {
				t.Error("Serve did not return after exit")
			}
		})
	}
}

// A run asked for a range its document does not have is refused with
// InvalidParams, before any model call.
func TestRunRangeOutOfRange(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t)
	s.ed.Initialize(ctx, s.root, nil, nil)
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	for _, rng := range []map[string]any{
		{"start": map[string]any{"line": 90, "character": 0}, "end": map[string]any{"line": 91, "character": 0}},
		{"start": map[string]any{"line": 3, "character": 0}, "end": map[string]any{"line": 1, "character": 0}},
	} {
		_, err := s.ed.Run(ctx, map[string]any{"prompt": "explain", "uri": u, "range": rng})
		var rpcErr *jsonrpc2.Error
		if !asRPC(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, "range") {
			t.Errorf("run with range %v: %v, want InvalidParams naming the range", rng, err)
		}
	}
	if n := len(s.gem.Requests()); n != 0 {
		t.Errorf("%d model requests", n)
	}
	if got, _ := s.ed.Buffer(u); got != mainGo {
		t.Errorf("buffer changed:\n%s", got)
	}
}
