package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

// Document sync feeds the workspace overlay. These are notifications: they
// run in wire order, and their errors are logged, never fatal.

func (s *Server) DidOpen(ctx context.Context, params *protocol.DidOpenTextDocumentParams) error {
	path, err := s.docPath(params.TextDocument.URI)
	if err != nil {
		return err
	}
	s.workspace().Open(path, params.TextDocument.Text, params.TextDocument.Version)
	s.docReported(path, true)
	return nil
}

func (s *Server) DidChange(ctx context.Context, params *protocol.DidChangeTextDocumentParams) error {
	path, err := s.docPath(params.TextDocument.URI)
	if err != nil {
		return err
	}
	changes := make([]workspace.Change, 0, len(params.ContentChanges))
	for _, c := range params.ContentChanges {
		switch c := c.(type) {
		case *protocol.TextDocumentContentChangePartial:
			r := c.Range
			changes = append(changes, workspace.Change{Range: &r, Text: c.Text})
		case *protocol.TextDocumentContentChangeWholeDocument:
			changes = append(changes, workspace.Change{Text: c.Text})
		}
	}
	if err := s.workspace().Change(path, params.TextDocument.Version, changes, s.encoding()); err != nil {
		return fmt.Errorf("didChange %s: %w", params.TextDocument.URI, err)
	}
	s.docReported(path, false)
	return nil
}

func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	path, err := s.docPath(params.TextDocument.URI)
	if err != nil {
		return err
	}
	s.workspace().Close(path)
	s.docReported(path, false)
	return nil
}

func (s *Server) DidSave(ctx context.Context, params *protocol.DidSaveTextDocumentParams) error {
	return nil
}

func (s *Server) docPath(u uri.URI) (string, error) {
	path, err := workspace.PathFromURI(u)
	if err != nil {
		return "", fmt.Errorf("document %s: %w", u, err)
	}
	return path, nil
}

func (s *Server) workspace() *workspace.Workspace {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ws
}

func (s *Server) encoding() lspedit.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.encoding
}

// documentSync decodes didOpen and didChange itself, with encoding/json,
// and takes their large texts from the transport, which lifted them out of
// the frame (decodeSync): the protocol package's decoder grows a string
// with escapes from a 32-byte buffer, which costs about six times a
// document's size in garbage for every document opened (or replaced
// whole). The result is the same: URIs go through uri.Parse, invalid UTF-8
// becomes U+FFFD byte by byte.
func (s *Server) documentSync(h jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case protocol.MethodTextDocumentDidOpen:
			var p protocol.DidOpenTextDocumentParams
			if err := s.decodeSync(req.Params(), &p, func() []*string { return []*string{&p.TextDocument.Text} }); err != nil {
				return nil, syncParamsError(req, err)
			}
			return nil, s.DidOpen(ctx, &p)
		case protocol.MethodTextDocumentDidChange:
			var p struct {
				TextDocument   protocol.VersionedTextDocumentIdentifier `json:"textDocument"`
				ContentChanges []struct {
					Range *protocol.Range `json:"range"`
					Text  string          `json:"text"`
				} `json:"contentChanges"`
			}
			texts := func() []*string {
				ts := make([]*string, len(p.ContentChanges))
				for i := range p.ContentChanges {
					ts[i] = &p.ContentChanges[i].Text
				}
				return ts
			}
			if err := s.decodeSync(req.Params(), &p, texts); err != nil {
				return nil, syncParamsError(req, err)
			}
			params := &protocol.DidChangeTextDocumentParams{TextDocument: p.TextDocument}
			for _, c := range p.ContentChanges {
				if c.Range != nil {
					params.ContentChanges = append(params.ContentChanges, &protocol.TextDocumentContentChangePartial{Range: *c.Range, Text: c.Text})
				} else {
					params.ContentChanges = append(params.ContentChanges, &protocol.TextDocumentContentChangeWholeDocument{Text: c.Text})
				}
			}
			return nil, s.DidChange(ctx, params)
		case contract.MethodDiagnostics:
			// In wire order with didChange: a list follows the change it
			// is about.
			return nil, s.didDiagnostics(ctx, req)
		}
		return h(ctx, req)
	}
}

func syncParamsError(req *jsonrpc2.Request, err error) error {
	return jsonrpc2.NewError(jsonrpc2.InvalidParams, "invalid params for "+req.Method()+": "+err.Error())
}
