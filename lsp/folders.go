package lsp

import (
	"context"
	"fmt"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/workspace"
)

// DidChangeWorkspaceFolders adds and removes workspace folders. A run keeps
// the folder it started in; new runs see the new set. The last folder is
// never removed: paths need a root.
func (s *Server) DidChangeWorkspaceFolders(ctx context.Context, params *protocol.DidChangeWorkspaceFoldersParams) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	folders := slices.Clone(s.folders)
	for _, f := range params.Event.Removed {
		if p, err := workspace.PathFromURI(f.URI); err == nil {
			folders = slices.DeleteFunc(folders, func(x string) bool { return x == p })
		}
	}
	for _, f := range params.Event.Added {
		p, err := workspace.PathFromURI(f.URI)
		if err != nil {
			return fmt.Errorf("workspace folder %s: %w", f.URI, err)
		}
		if !slices.Contains(folders, p) {
			folders = append(folders, p)
		}
	}
	if len(folders) == 0 {
		return fmt.Errorf("didChangeWorkspaceFolders: keeping %v, the last workspace folder", s.folders)
	}
	if err := s.ws.SetRoots(folders...); err != nil {
		return fmt.Errorf("didChangeWorkspaceFolders: %w", err)
	}
	s.folders = folders
	s.log.Info("workspace folders changed", "roots", s.ws.Roots())
	return nil
}
