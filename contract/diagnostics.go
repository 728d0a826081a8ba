package contract

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// MethodDiagnostics is the notification (client → server) with which a
// plugin tells the server the diagnostics the editor shows for a document,
// from every source, whenever that list changes. A client that sends it sets
// the "diagnostics" setting in its initializationOptions.
const MethodDiagnostics = "agentls/diagnostics"

// DiagnosticsParams are the params of agentls/diagnostics: the complete
// current list for one document (an empty list clears it).
type DiagnosticsParams struct {
	URI uri.URI `json:"uri"`
	// Version is the document version the list is for, when the editor
	// knows it.
	Version     *int32                `json:"version,omitempty"`
	Diagnostics []protocol.Diagnostic `json:"diagnostics"`
}
