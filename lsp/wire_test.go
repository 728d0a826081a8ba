package lsp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

// A wire is an editor's end of a server's stdio, as raw bytes: tests write
// frames (or anything else) to the server's stdin with Serve reading it,
// and read the frames it writes back. It answers nothing on its own.
type wire struct {
	t    testing.TB
	in   *io.PipeWriter // the server's stdin
	done chan error     // Serve's result

	mu     sync.Mutex
	cond   *sync.Cond
	got    []wireMsg // frames from the server, in order
	eof    bool      // the server's stdout closed
	nextID int
	alives map[string]bool // ids of alive's requests
}

// A wireMsg is a frame the server sent.
type wireMsg struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	raw string
}

// newWire starts a server on pipes. The server's stdout is always drained,
// so a test that stops reading never blocks the server.
func newWire(t testing.TB, cfg lsp.Config) *wire {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	w := &wire{t: t, in: inW, done: make(chan error, 1)}
	w.cond = sync.NewCond(&w.mu)
	srv := lsp.New(cfg)
	go func() {
		err := srv.Serve(context.Background(), pipeRWC{inR, outW})
		outW.Close()
		w.done <- err
	}()
	go w.read(outR)
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-w.done:
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after stdin closed")
		}
	})
	return w
}

// pipeRWC is the server's stdio: reads from one pipe, writes to another.
type pipeRWC struct {
	*io.PipeReader
	out *io.PipeWriter
}

func (p pipeRWC) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p pipeRWC) Close() error                { p.PipeReader.Close(); return p.out.Close() }

func (w *wire) read(r io.Reader) {
	defer func() {
		w.mu.Lock()
		w.eof = true
		w.cond.Broadcast()
		w.mu.Unlock()
	}()
	br := bufio.NewReader(r)
	for {
		body, err := lsp.ReadFrameBody(br)
		if err != nil {
			return
		}
		m := wireMsg{raw: string(body)}
		if err := json.Unmarshal(body, &m); err != nil {
			m.Method = "(undecodable)"
		}
		w.mu.Lock()
		w.got = append(w.got, m)
		w.cond.Broadcast()
		w.mu.Unlock()
	}
}

// send writes raw bytes to the server's stdin, in one write.
func (w *wire) send(b string) {
	w.t.Helper()
	if _, err := io.WriteString(w.in, b); err != nil {
		w.t.Fatalf("write to the server: %v", err)
	}
}

// frame is body with its Content-Length header.
func frame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}

// request sends a request and returns its id, without waiting.
func (w *wire) request(method, params string) string {
	w.t.Helper()
	w.mu.Lock()
	w.nextID++
	id := strconv.Itoa(w.nextID)
	w.mu.Unlock()
	body := `{"jsonrpc":"2.0","id":` + id + `,"method":"` + method + `"`
	if params != "" {
		body += `,"params":` + params
	}
	w.send(frame(body + "}"))
	return id
}

func (w *wire) notify(method, params string) {
	w.t.Helper()
	w.send(frame(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`))
}

// call sends a request and waits for its answer.
func (w *wire) call(method, params string) wireMsg {
	w.t.Helper()
	return w.answer(w.request(method, params))
}

// answer waits for the response with id (a JSON number or string).
func (w *wire) answer(id string) wireMsg {
	w.t.Helper()
	return w.waitFor("the answer to "+id, func(m wireMsg) bool { return m.Method == "" && string(m.ID) == id })
}

// waitFor waits for a frame that satisfies ok; it fails the test when the
// server's stdout closes or a minute passes first.
func (w *wire) waitFor(what string, ok func(wireMsg) bool) wireMsg {
	w.t.Helper()
	timer := time.AfterFunc(time.Minute, func() {
		w.mu.Lock()
		w.eof = true // give up
		w.cond.Broadcast()
		w.mu.Unlock()
	})
	defer timer.Stop()
	w.mu.Lock()
	defer w.mu.Unlock()
	for seen := 0; ; {
		for ; seen < len(w.got); seen++ {
			if ok(w.got[seen]) {
				return w.got[seen]
			}
		}
		if w.eof {
			var got strings.Builder
			for _, m := range w.got {
				fmt.Fprintf(&got, "\n  %.300s", m.raw)
			}
			w.t.Fatalf("waiting for %s: the server's output ended; got:%s", what, got.String())
		}
		w.cond.Wait()
	}
}

// initialize initializes the server with root as its folder and no client
// capabilities.
func (w *wire) initialize(root string) {
	w.t.Helper()
	m := w.call("initialize", `{"processId":null,"rootUri":"`+string(workspace.URIFromPath(root))+`","capabilities":{}}`)
	if m.Error != nil {
		w.t.Fatalf("initialize: %s", m.raw)
	}
	w.notify("initialized", `{}`)
}

// alive proves the server still serves: of two code action requests sent
// back to back, the second is answered with a result (the first may have
// been eaten by a frame that claimed more bytes than it had).
func (w *wire) alive(file string) {
	w.t.Helper()
	params := `{"textDocument":{"uri":"` + string(workspace.URIFromPath(file)) + `"},` +
		`"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":4}},"context":{"diagnostics":[]}}`
	first, second := w.request("textDocument/codeAction", params), w.request("textDocument/codeAction", params)
	w.mu.Lock()
	if w.alives == nil {
		w.alives = make(map[string]bool)
	}
	w.alives[first], w.alives[second] = true, true
	w.mu.Unlock()
	m := w.answer(second)
	if m.Error != nil || !strings.HasPrefix(string(m.Result), "[") {
		w.t.Fatalf("the server is not serving: codeAction answered %s", m.raw)
	}
}

// isAlive reports whether m answers one of alive's requests.
func (w *wire) isAlive(m wireMsg) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return m.Method == "" && w.alives[string(m.ID)]
}

// exited reports whether Serve returned within d.
func (w *wire) exited(d time.Duration) bool {
	select {
	case err := <-w.done:
		w.done <- err
		return true
	case <-time.After(d):
		return false
	}
}

// newPipeSession is newSession with the server on its stdio, as agentls
// serve runs: Serve reads and writes pipes whose other ends the editor
// holds. disconnect closes the editor's ends, as when the editor dies.
func newPipeSession(t testing.TB, turns ...geminitest.Turn) (s *session, disconnect func(), served <-chan struct{}) {
	t.Helper()
	gem := geminitest.NewServer(t, turns...)
	userDir := t.TempDir()
	ed, disconnect, served := newPipeServer(t, lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model, Getenv: func(string) string { return "" }})
		},
		Version: "test", UserConfigDir: userDir, CacheDir: t.TempDir(),
	})
	return &session{ed: ed, gem: gem, root: t.TempDir(), userDir: userDir}, disconnect, served
}

// newPipeServer starts a server on pipes and connects a test editor to
// their other ends.
func newPipeServer(t testing.TB, cfg lsp.Config) (ed *lsptest.Editor, disconnect func(), served <-chan struct{}) {
	t.Helper()
	srv := lsp.New(cfg)
	c2sR, c2sW := io.Pipe()
	s2cR, s2cW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(context.Background(), pipeRWC{c2sR, s2cW}); err != nil {
			t.Errorf("serve: %v", err)
		}
	}()
	disconnect = func() {
		c2sW.Close()
		s2cR.Close()
	}
	t.Cleanup(func() {
		disconnect()
		<-done
	})
	return lsptest.New(t, jsonrpc2.NewStream(pipeRWC{s2cR, c2sW})), disconnect, done
}
