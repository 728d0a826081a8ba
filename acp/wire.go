package acp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"
)

// MaxMessage bounds one message from the client, in bytes. The SDK closes
// the connection on a line over 10 MiB; a longer one is answered with an
// error here instead and dropped.
const MaxMessage = 8 << 20

// JSON-RPC error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

// rpcError is a JSON-RPC error whose message says what was wrong.
func rpcError(code int, format string, args ...any) *acpsdk.RequestError {
	return &acpsdk.RequestError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// A gate passes writes to the client and the SDK's log lines one at a time
// (the SDK's and the guard's writes share the client's stdin) until it is
// closed: the SDK's goroutines may outlive Serve a moment, and must then
// write nothing.
//
// It also counts the client's requests not answered yet (the guard adds
// those it passes on, Write takes away the answers), so that Serve answers
// every request read before the client closed its end.
type gate struct {
	mu      sync.Mutex
	w       io.Writer
	log     slog.Handler
	closed  bool
	pending int // requests passed to the SDK and not answered
	idle    *sync.Cond
}

func newGate(w io.Writer, log slog.Handler) *gate {
	g := &gate{w: w, log: log}
	g.idle = sync.NewCond(&g.mu)
	return g
}

// Write writes one whole message to the client.
func (g *gate) Write(p []byte) (int, error) {
	answer := isAnswer(p)
	g.mu.Lock()
	defer g.mu.Unlock()
	if answer && g.pending > 0 {
		g.pending--
		g.idle.Broadcast()
	}
	if g.closed {
		return 0, io.ErrClosedPipe
	}
	return g.w.Write(p)
}

// request counts a request passed on to the SDK.
func (g *gate) request() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending++
}

// drain waits until every request passed on is answered.
func (g *gate) drain() {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.pending > 0 {
		g.idle.Wait()
	}
}

// isAnswer tells a response from a request or a notification.
func isAnswer(msg []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	return json.Unmarshal(msg, &m) == nil && m.Method == nil && m.ID != nil
}

// close lets nothing through any more; it returns once nothing is.
func (g *gate) close() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.closed = true
}

// logger is a logger whose lines pass the gate.
func (g *gate) logger() *slog.Logger { return slog.New(gatedHandler{g, g.log}) }

type gatedHandler struct {
	g *gate
	h slog.Handler
}

func (h gatedHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.h.Enabled(ctx, l) }

func (h gatedHandler) Handle(ctx context.Context, r slog.Record) error {
	h.g.mu.Lock()
	defer h.g.mu.Unlock()
	if h.g.closed {
		return nil
	}
	return h.h.Handle(ctx, r)
}

func (h gatedHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return gatedHandler{h.g, h.h.WithAttrs(as)}
}
func (h gatedHandler) WithGroup(name string) slog.Handler {
	return gatedHandler{h.g, h.h.WithGroup(name)}
}

// guard passes the client's lines to the SDK, and answers itself the lines
// the SDK would drop without a word or die on: a line that is not JSON
// (Parse error), a batch or an object that is no message (Invalid Request),
// a line over MaxMessage. It returns when in ends, and then closes to.
func guard(in io.Reader, to *io.PipeWriter, out *gate, log *slog.Logger) {
	defer to.Close()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(r, MaxMessage)
		if tooLong {
			log.Warn("acp: message too long, dropped", "limit", MaxMessage)
			out.reply(nil, codeInvalidRequest, fmt.Sprintf("message longer than %d bytes", MaxMessage))
		} else if len(bytes.TrimSpace(line)) > 0 {
			id, request, code, msg := check(line)
			if code != 0 {
				log.Warn("acp: bad message", "err", msg)
				out.reply(id, code, msg)
				continue
			}
			if request {
				out.request()
			}
			if _, werr := to.Write(append(line, '\n')); werr != nil {
				return // the SDK stopped reading
			}
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				log.Info("acp: reading from the client", "err", err)
			}
			return
		}
	}
}

// readLine reads one line without its newline, up to max bytes; past that
// it reads on to the newline, keeps nothing and says so.
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// check tells whether a line is a JSON-RPC message the SDK can take; if not,
// the code and message of the error to answer, and the id to answer it
// with (nil when it cannot be read).
func check(line []byte) (id json.RawMessage, request bool, code int, msg string) {
	if !json.Valid(line) {
		return nil, false, codeParseError, "Parse error: the line is not JSON"
	}
	line = bytes.TrimSpace(line)
	if line[0] == '[' {
		return nil, false, codeInvalidRequest, "batches are not supported: send one message a line"
	}
	var m map[string]json.RawMessage
	if line[0] != '{' || json.Unmarshal(line, &m) != nil {
		return nil, false, codeInvalidRequest, "a message must be a JSON-RPC 2.0 object"
	}
	id, hasID := m["id"]
	if hasID {
		switch id[0] {
		case '"', 'n', '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		default:
			return nil, false, codeInvalidRequest, "id must be a string, a number or null"
		}
	}
	_, hasResult := m["result"]
	_, hasError := m["error"]
	method, hasMethod := m["method"]
	switch {
	case hasMethod:
		var name string
		if json.Unmarshal(method, &name) != nil || name == "" {
			return id, false, codeInvalidRequest, "method must be a non-empty string"
		}
	case !hasID || !hasResult && !hasError:
		return id, false, codeInvalidRequest, "a message needs a method, or an id and a result or error"
	}
	// A null id makes a notification for the SDK, which answers none.
	return nil, hasMethod && hasID && string(id) != "null", 0, ""
}

// reply writes the guard's own error response; a nil id is null (the id of
// a message that cannot be read is unknown).
func (g *gate) reply(id json.RawMessage, code int, msg string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.closed {
		g.w.Write(append(b, '\n'))
	}
}

// safely runs a handler, turning a panic into an internal error: no bug in
// a handler takes the process down with the client's work.
func safely[T any](log *slog.Logger, method string, f func() (T, error)) (res T, err error) {
	defer func() {
		if v := recover(); v != nil {
			log.Error("acp: handler panicked", "method", method, "panic", v, "stack", string(debug.Stack()))
			err = rpcError(codeInternalError, "agentls: internal error in %s: %v", method, v)
		}
	}()
	return f()
}
