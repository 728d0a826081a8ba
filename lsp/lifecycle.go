package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
	"github.com/agentls/agentls/workspace"
)

func (s *Server) Initialize(ctx context.Context, params *protocol.InitializeParams) (*protocol.InitializeResult, error) {
	roots := initialRoots(params)
	ws, err := workspace.New(roots...)
	if err != nil {
		return nil, fmt.Errorf("%w: workspace folders: %v", errInvalidParams, err)
	}
	caps := readCaps(params.Capabilities)
	caps.quirks = quirksOf(params.ClientInfo, caps.plugin)

	s.mu.Lock()
	s.state = stateRunning
	s.ws = ws
	s.folders = roots
	s.caps = caps
	s.config.initOpts = json.RawMessage(params.InitializationOptions)
	s.config.file.refresh()
	s.mu.Unlock()
	s.applySettings(ctx)
	version, _ := params.ClientInfo.Version.Get()
	s.log.Info("initialized", "client", params.ClientInfo.Name, "version", version, "plugin", caps.plugin,
		"quirks", fmt.Sprintf("%+v", caps.quirks), "roots", ws.Roots(), "encoding", caps.encoding.Kind())

	sync := protocol.TextDocumentSyncKindIncremental
	return &protocol.InitializeResult{
		Capabilities: protocol.ServerCapabilities{
			PositionEncoding:   caps.encoding.Kind(),
			TextDocumentSync:   &protocol.TextDocumentSyncOptions{OpenClose: ptr(true), Change: &sync},
			CodeActionProvider: &protocol.CodeActionOptions{CodeActionKinds: codeActionKinds()},
			ExecuteCommandProvider: protocol.ExecuteCommandOptions{
				Commands: slices.Clone(contract.Commands),
			},
			Workspace: &protocol.WorkspaceOptions{WorkspaceFolders: &protocol.WorkspaceFoldersServerCapabilities{
				Supported: ptr(true), ChangeNotifications: protocol.Boolean(true),
			}},
		},
		ServerInfo: protocol.ServerInfo{Name: "agentls", Version: protocol.NewOptional(s.cfg.Version)},
	}, nil
}

func (s *Server) Initialized(ctx context.Context, params *protocol.InitializedParams) error {
	s.pullConfiguration()
	return nil
}

func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.state = stateShutdown
	s.mu.Unlock()
	s.runs.cancelAll()
	return nil
}

func (s *Server) Exit(ctx context.Context) error {
	code := 1
	if s.lifecycle() == stateShutdown {
		code = 0
	}
	s.exit() // before waiting: runs must not wait for answers no one can read now
	s.runs.cancelAll()
	if s.cfg.Exit != nil {
		s.runs.wait()
		s.host.MCP.Close() // before the process ends: their process groups too
		s.cfg.Exit(code)
	}
	s.stop()
	return nil
}

// initialRoots picks the workspace folders: workspaceFolders, else rootUri,
// else rootPath, else the current directory.
func initialRoots(p *protocol.InitializeParams) []string {
	var roots []string
	if folders, ok := p.WorkspaceFolders.Get(); ok {
		for _, f := range folders {
			if path, err := workspace.PathFromURI(f.URI); err == nil {
				roots = append(roots, path)
			}
		}
	}
	if len(roots) == 0 && p.RootURI != nil && *p.RootURI != "" {
		if path, err := workspace.PathFromURI(*p.RootURI); err == nil {
			roots = append(roots, path)
		}
	}
	if len(roots) == 0 {
		if rp, ok := p.RootPath.Get(); ok && rp != "" {
			roots = append(roots, rp)
		}
	}
	if len(roots) == 0 {
		if wd, err := os.Getwd(); err == nil {
			roots = append(roots, wd)
		}
	}
	return roots
}

func readCaps(c protocol.ClientCapabilities) clientCaps {
	caps := clientCaps{encoding: lspedit.UTF16, plugin: hasPlugin(c)}
	if c.General != nil && slices.Contains(c.General.PositionEncodings, protocol.PositionEncodingKindUTF8) {
		caps.encoding = lspedit.UTF8
	}
	if w := c.Window; w != nil {
		caps.workDoneProgress = isTrue(w.WorkDoneProgress)
		caps.showDocument = w.ShowDocument != nil && w.ShowDocument.Support
	}
	if w := c.Workspace; w != nil {
		caps.applyEdit = isTrue(w.ApplyEdit)
		caps.configuration = isTrue(w.Configuration)
		if we := w.WorkspaceEdit; we != nil {
			caps.documentChanges = isTrue(we.DocumentChanges)
			caps.changeAnnotations = we.ChangeAnnotationSupport != nil
			caps.resourceOps = we.ResourceOperations
		}
	}
	return caps
}

func isTrue(b *bool) bool { return b != nil && *b }

func ptr[T any](v T) *T { return &v }
