package lsp

import (
	"context"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/lsp/transport"
)

// maxDiagnostics bounds the diagnostics kept for one document; a linter
// gone wild reports thousands, and the model reads a few.
const maxDiagnostics = 1000

// diagStore keeps the latest diagnostics the editor showed for each
// document (agentls/diagnostics), by path.
type diagStore struct {
	mu     sync.Mutex
	byPath map[string]docDiagnostics
}

type docDiagnostics struct {
	version *int32
	list    []protocol.Diagnostic
}

func (d *diagStore) set(path string, version *int32, list []protocol.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byPath == nil {
		d.byPath = make(map[string]docDiagnostics)
	}
	if len(list) == 0 {
		delete(d.byPath, path)
		return
	}
	d.byPath[path] = docDiagnostics{version: version, list: list[:min(len(list), maxDiagnostics)]}
}

// problems returns the problems of the file at path, or with path "", of
// every file that has some, as the harness reads them.
func (d *diagStore) problems(path string) map[string][]agent.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string][]agent.Diagnostic)
	for p, dd := range d.byPath {
		if path == "" || p == path {
			out[p] = agentDiagnostics(dd.list)
		}
	}
	return out
}

// agentDiagnostics converts LSP diagnostics to the harness's.
func agentDiagnostics(ds []protocol.Diagnostic) []agent.Diagnostic {
	out := make([]agent.Diagnostic, len(ds))
	for i, d := range ds {
		out[i] = agent.Diagnostic{Line: int(d.Range.Start.Line) + 1, Message: diagnosticMessage(d),
			Source: optional(d.Source), Severity: severity(d.Severity)}
	}
	return out
}

// didDiagnostics handles agentls/diagnostics: the list replaces the
// document's, unless the document is outside the workspace folders or the
// list is for a version older than the buffer the server has.
func (s *Server) didDiagnostics(ctx context.Context, req *jsonrpc2.Request) error {
	var p contract.DiagnosticsParams
	if err := (transport.Codec{}).Unmarshal(req.Params(), &p); err != nil {
		return syncParamsError(req, err)
	}
	path, err := s.docPath(p.URI)
	if err != nil {
		return err
	}
	ws := s.workspace()
	if _, ok := ws.RootFor(path); !ok {
		return nil
	}
	if v, open := ws.Version(path); open && p.Version != nil && *p.Version < v {
		return nil // a list for a text the editor no longer has
	}
	s.diags.set(path, p.Version, p.Diagnostics)
	return nil
}
