package lsptest

import "go.lsp.dev/protocol"

// FullCapabilities are the capabilities of a capable client (like VS Code):
// documentChanges with every resource operation, change annotations,
// work-done progress, showDocument, workspace/configuration and folders.
func FullCapabilities() *protocol.ClientCapabilities {
	t := true
	return &protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit: &t,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
				DocumentChanges:         &t,
				ResourceOperations:      []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindDelete},
				ChangeAnnotationSupport: &protocol.ChangeAnnotationsSupportOptions{GroupsOnLabel: &t},
			},
			Configuration:    &t,
			WorkspaceFolders: &t,
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: &t,
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: true},
		},
	}
}

// Neovim07Capabilities are Neovim 0.7's: no documentChanges (though it
// applies them) and no change annotations, but resource operations and
// work-done progress; showDocument declared unsupported.
func Neovim07Capabilities() *protocol.ClientCapabilities {
	t := true
	return &protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit: &t,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
				ResourceOperations: []protocol.ResourceOperationKind{protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindRename, protocol.ResourceOperationKindDelete},
			},
			Configuration:    &t,
			WorkspaceFolders: &t,
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: &t,
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: false},
		},
	}
}

// Neovim012Capabilities are Neovim 0.12's: change annotations (which it
// confirms itself with Yes/No, answering applied:true either way) but no
// documentChanges, every resource operation, work-done progress and
// showDocument.
func Neovim012Capabilities() *protocol.ClientCapabilities {
	t := true
	return &protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit: &t,
			WorkspaceEdit: &protocol.WorkspaceEditClientCapabilities{
				ResourceOperations:      []protocol.ResourceOperationKind{protocol.ResourceOperationKindRename, protocol.ResourceOperationKindCreate, protocol.ResourceOperationKindDelete},
				ChangeAnnotationSupport: &protocol.ChangeAnnotationsSupportOptions{GroupsOnLabel: &t},
			},
			Configuration:    &t,
			WorkspaceFolders: &t,
		},
		Window: &protocol.WindowClientCapabilities{
			WorkDoneProgress: &t,
			ShowDocument:     &protocol.ShowDocumentClientCapabilities{Support: true},
		},
	}
}

// NeovimInfo is Neovim's clientInfo for a version ("0.12.4").
func NeovimInfo(version string) protocol.ClientInfo {
	return protocol.ClientInfo{Name: "Neovim", Version: protocol.NewOptional(version)}
}

// EglotCapabilities are Emacs eglot 1.9's: documentChanges, no change
// annotations, no work-done progress, no showDocument.
func EglotCapabilities() *protocol.ClientCapabilities {
	t := true
	return &protocol.ClientCapabilities{
		Workspace: &protocol.WorkspaceClientCapabilities{
			ApplyEdit:        &t,
			WorkspaceEdit:    &protocol.WorkspaceEditClientCapabilities{DocumentChanges: &t},
			Configuration:    &t,
			WorkspaceFolders: &t,
		},
	}
}

// MinimalCapabilities declare nothing: no applyEdit, no progress.
func MinimalCapabilities() *protocol.ClientCapabilities {
	return &protocol.ClientCapabilities{}
}
