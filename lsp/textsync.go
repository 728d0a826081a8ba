package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
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
	s.docs.notify()
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
	s.docs.notify()
	return nil
}

func (s *Server) DidClose(ctx context.Context, params *protocol.DidCloseTextDocumentParams) error {
	path, err := s.docPath(params.TextDocument.URI)
	if err != nil {
		return err
	}
	s.workspace().Close(path)
	s.docs.notify()
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

func (s *Server) encoding() edits.Encoding {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps.encoding
}
