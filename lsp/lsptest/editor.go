// Package lsptest is a test editor: an LSP client over a real jsonrpc2
// connection that keeps buffers, applies workspace/applyEdit the way editors
// do (version check, then didChange back to the server), answers requests by
// a policy the test sets, and records everything the server sends.
package lsptest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/lsp/transport"
	"github.com/agentls/agentls/workspace"
)

// An Answer is the editor's reply to one workspace/applyEdit.
type Answer struct {
	Reject bool            // reply applied: false
	Reason string          // failureReason with Reject
	Error  *jsonrpc2.Error // reply with this error instead (as eglot does)
	// Stale replies applied: true and changes nothing, as Neovim does with
	// an edit for an older version (or 0.12 with an annotated edit the
	// user said No to).
	Stale bool
	// Late applies the edit to the buffers but tells the server only at
	// Sync, as Emacs eglot does from its idle timer.
	Late bool
	// RejectHunks and EditHunks make a partial decision, as a plugin that
	// lets the user decide hunk by hunk: the hunks of each document edit
	// (see Hunks) listed in RejectHunks are left out, those in EditHunks get
	// the given text instead of theirs, and the reply carries the agentls
	// extension with each file's final text.
	RejectHunks []int
	EditHunks   map[int]string
}

// Editor is the test's LSP client.
type Editor struct {
	t      testing.TB
	Server protocol.Server // typed calls to the server
	conn   jsonrpc2.Conn
	enc    lspedit.Encoding

	// Decide answers applyEdit requests; nil accepts everything. It runs on
	// its own goroutine and may block.
	Decide func(*protocol.ApplyWorkspaceEditParams) Answer
	// Intercept, when set, sees every request from the server first; when
	// it reports handled, its result or error is the reply. It runs on its
	// own goroutine and may block; ctx ends when the server cancels the
	// request ($/cancelRequest).
	Intercept func(ctx context.Context, m Message) (result any, err error, handled bool)
	// Configuration answers workspace/configuration (one value per item).
	Configuration any
	// ShowMessageRequest answers window/showMessageRequest; nil dismisses
	// every question (a nil item). See requests.go.
	ShowMessageRequest func(*protocol.ShowMessageRequestParams) *protocol.MessageActionItem
	// ClientInfo is the clientInfo Initialize sends.
	ClientInfo protocol.ClientInfo

	mu      sync.Mutex
	changed *sync.Cond // signalled whenever something is recorded
	caps    protocol.ClientCapabilities
	docs    map[uri.URI]*doc
	late    map[uri.URI]lateEdit // buffers of Late edits not told yet
	log     []Message            // everything the server sent, in order
	closed  bool
}

type doc struct {
	text    string
	version int32
}

// A Message is one thing the server sent the editor.
type Message struct {
	Method string
	Params json.RawMessage
	Call   bool   // a request, not a notification
	ID     string // a request's id
}

// New connects an editor to a server stream. The connection closes at the
// end of the test.
func New(t testing.TB, stream jsonrpc2.Stream) *Editor {
	e := &Editor{t: t, docs: make(map[uri.URI]*doc), enc: lspedit.UTF16}
	e.changed = sync.NewCond(&e.mu)
	e.conn = jsonrpc2.NewConn(stream, jsonrpc2.WithCodec(transport.Codec{}))
	e.Server = protocol.ServerDispatcher(e.conn)
	e.conn.Go(context.Background(), e.recording(protocol.CancelHandler(e.handle)))
	t.Cleanup(func() {
		e.conn.Close()
		e.mu.Lock()
		e.closed = true
		e.changed.Broadcast()
		e.mu.Unlock()
	})
	return e
}

// recording records every message the server sends, $/cancelRequest
// included, in wire order.
func (e *Editor) recording(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		e.record(message(req))
		return h(ctx, req)
	}
}

// handle answers requests on their own goroutine; notifications need no
// answer.
func (e *Editor) handle(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	if !req.IsCall() {
		return nil, nil
	}
	msg := message(req)
	jsonrpc2.Async(ctx)
	if e.Intercept != nil {
		if res, err, ok := e.Intercept(ctx, msg); ok {
			return res, err
		}
	}
	switch msg.Method {
	case protocol.MethodWorkspaceApplyEdit:
		var p protocol.ApplyWorkspaceEditParams
		if err := protocol.Unmarshal(msg.Params, &p); err != nil {
			return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
		}
		return e.applyEdit(ctx, &p)
	case protocol.MethodWindowWorkDoneProgressCreate:
		return nil, nil
	case protocol.MethodWindowShowMessageRequest:
		return e.showMessageRequest(msg)
	case protocol.MethodWindowShowDocument:
		if !e.declares(func(c protocol.ClientCapabilities) bool {
			return c.Window != nil && c.Window.ShowDocument != nil && c.Window.ShowDocument.Support
		}) {
			return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test editor: no window/showDocument") // as Neovim 0.7
		}
		return &protocol.ShowDocumentResult{Success: true}, nil
	case protocol.MethodWorkspaceConfiguration:
		return []any{e.Configuration}, nil
	}
	return nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "test editor: no "+msg.Method)
}

func message(req *jsonrpc2.Request) Message {
	m := Message{Method: strings.Clone(req.Method()), Params: json.RawMessage(slices.Clone(req.Params())), Call: req.IsCall()}
	if m.Call {
		m.ID = fmt.Sprint(req.ID())
	}
	return m
}

func (e *Editor) record(m Message) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.log = append(e.log, m)
	e.changed.Broadcast()
}

// Initialize sends initialize (with caps, or full capabilities when nil) and
// initialized.
func (e *Editor) Initialize(ctx context.Context, root string, caps *protocol.ClientCapabilities, options any) *protocol.InitializeResult {
	e.t.Helper()
	return e.InitializeFolders(ctx, []string{root}, caps, options)
}

// InitializeFolders is Initialize with several workspace folders.
func (e *Editor) InitializeFolders(ctx context.Context, roots []string, caps *protocol.ClientCapabilities, options any) *protocol.InitializeResult {
	e.t.Helper()
	if caps == nil {
		caps = FullCapabilities()
	}
	e.mu.Lock()
	e.caps = *caps
	e.mu.Unlock()
	params := &protocol.InitializeParams{Capabilities: *caps, ClientInfo: e.ClientInfo}
	var folders []protocol.WorkspaceFolder
	for _, r := range roots {
		folders = append(folders, protocol.WorkspaceFolder{URI: workspace.URIFromPath(r), Name: filepath.Base(r)})
	}
	params.WorkspaceFolders = protocol.NewNullable(folders)
	if options != nil {
		b, err := json.Marshal(options)
		if err != nil {
			e.t.Fatal(err)
		}
		params.InitializationOptions = protocol.LSPAny(b)
	}
	res, err := e.Server.Initialize(ctx, params)
	if err != nil {
		e.t.Fatalf("initialize: %v", err)
	}
	e.enc = lspedit.ParseEncoding(res.Capabilities.PositionEncoding)
	if err := e.Server.Initialized(ctx, &protocol.InitializedParams{}); err != nil {
		e.t.Fatalf("initialized: %v", err)
	}
	return res
}

// declares reports whether the editor's capabilities satisfy has.
func (e *Editor) declares(has func(protocol.ClientCapabilities) bool) bool {
	e.mu.Lock()
	defer e.mu.Unlock()
	return has(e.caps)
}

// Open opens a document with the given text, as the editor's buffer.
func (e *Editor) Open(ctx context.Context, path, text string) uri.URI {
	e.t.Helper()
	u := workspace.URIFromPath(path)
	e.mu.Lock()
	e.docs[u] = &doc{text: text, version: 1}
	e.mu.Unlock()
	err := e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
		URI: u, LanguageID: "go", Version: 1, Text: text}})
	if err != nil {
		e.t.Fatalf("didOpen: %v", err)
	}
	return u
}

// Type replaces the whole buffer as if the user typed, and tells the server.
func (e *Editor) Type(ctx context.Context, u uri.URI, text string) {
	e.t.Helper()
	e.mu.Lock()
	d := e.docs[u]
	d.text = text
	d.version++
	v := d.version
	e.mu.Unlock()
	err := e.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{
		TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: v},
		ContentChanges: []protocol.TextDocumentContentChangeEvent{&protocol.TextDocumentContentChangeWholeDocument{Text: text}},
	})
	if err != nil {
		e.t.Fatalf("didChange: %v", err)
	}
}

// Buffer returns a document's text, ok false when it is not open.
func (e *Editor) Buffer(u uri.URI) (string, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[u]
	if !ok {
		return "", false
	}
	return d.text, true
}

// Version returns a document's version, ok false when it is not open.
func (e *Editor) Version(u uri.URI) (int32, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, ok := e.docs[u]
	if !ok {
		return 0, false
	}
	return d.version, true
}

// Run executes agentls.run and returns the run id.
func (e *Editor) Run(ctx context.Context, args map[string]any) (string, error) {
	b, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	res, err := e.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "agentls.run", Arguments: []protocol.LSPAny{b}})
	if err != nil {
		return "", err
	}
	var out struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return "", fmt.Errorf("agentls.run answer %s: %w", res, err)
	}
	return out.RunID, nil
}

// Messages returns what the server sent so far.
func (e *Editor) Messages() []Message {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.log)
}

// WaitFor waits until a message satisfies ok and returns it. It fails the
// test when the connection closes or the test's deadline (at most a minute)
// passes first.
func (e *Editor) WaitFor(what string, ok func(Message) bool) Message {
	e.t.Helper()
	deadline := time.Now().Add(time.Minute)
	if d, has := e.t.(interface{ Deadline() (time.Time, bool) }); has {
		if dl, set := d.Deadline(); set && dl.Before(deadline) {
			deadline = dl.Add(-5 * time.Second)
		}
	}
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	_, m, err := e.Next(ctx, 0, ok)
	if err != nil {
		var got strings.Builder
		for _, m := range e.Messages() {
			fmt.Fprintf(&got, "\n  %s %.300s", m.Method, m.Params)
		}
		e.t.Fatalf("waiting for %s: %v; got:%s", what, err, got.String())
	}
	return m
}

// Next waits until a message at index from or later satisfies ok, and
// returns it with its index. It fails when ctx ends or the connection closes
// first; it never fails the test itself, so any goroutine may call it.
func (e *Editor) Next(ctx context.Context, from int, ok func(Message) bool) (int, Message, error) {
	stop := context.AfterFunc(ctx, func() {
		e.mu.Lock()
		e.changed.Broadcast()
		e.mu.Unlock()
	})
	defer stop()
	e.mu.Lock()
	defer e.mu.Unlock()
	for seen := from; ; {
		for ; seen < len(e.log); seen++ {
			if ok(e.log[seen]) {
				return seen, e.log[seen], nil
			}
		}
		switch {
		case e.closed:
			return 0, Message{}, errors.New("the connection closed")
		case ctx.Err() != nil:
			return 0, Message{}, ctx.Err()
		}
		e.changed.Wait()
	}
}

// ProgressEnd waits for the $/progress end and returns its message.
func (e *Editor) ProgressEnd() string {
	e.t.Helper()
	m := e.WaitFor("progress end", func(m Message) bool {
		return m.Method == protocol.MethodProgress && progressKind(m) == "end"
	})
	var p struct {
		Value struct {
			Message string `json:"message"`
		} `json:"value"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Value.Message
}

func progressKind(m Message) string {
	var p struct {
		Value struct {
			Kind string `json:"kind"`
		} `json:"value"`
	}
	json.Unmarshal(m.Params, &p)
	return p.Value.Kind
}

// ProgressReports returns the messages of every $/progress report so far.
func (e *Editor) ProgressReports() []string {
	var out []string
	for _, m := range e.Messages() {
		if m.Method != protocol.MethodProgress || progressKind(m) != "report" {
			continue
		}
		var p struct {
			Value struct {
				Message string `json:"message"`
			} `json:"value"`
		}
		json.Unmarshal(m.Params, &p)
		out = append(out, p.Value.Message)
	}
	return out
}

// Close closes the connection, as an editor that quits: the server reads
// EOF.
func (e *Editor) Close() error { return e.conn.Close() }

// Diagnostics tells the server the diagnostics the editor shows for u
// (agentls/diagnostics), as a plugin does.
func (e *Editor) Diagnostics(ctx context.Context, u uri.URI, version *int32, ds []protocol.Diagnostic) {
	e.t.Helper()
	if ds == nil {
		ds = []protocol.Diagnostic{}
	}
	if err := e.conn.Notify(ctx, contract.MethodDiagnostics, contract.DiagnosticsParams{URI: u, Version: version, Diagnostics: ds}); err != nil {
		e.t.Fatalf("agentls/diagnostics: %v", err)
	}
}
