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

// maxCleared bounds the documents the store remembers an empty list for
// (which only a wait for a change's diagnostics needs): past it, an empty
// list just clears the document's.
const maxCleared = 10000

// diagStore keeps the latest diagnostics the editor showed for each
// document (agentls/diagnostics), by canonical path, and tells waiters
// when a list comes.
type diagStore struct {
	mu      sync.Mutex
	seq     uint64 // lists received so far
	byPath  map[string]docDiagnostics
	cleared int           // entries of byPath with an empty list
	changed chan struct{} // closed, and replaced, when a list comes
}

// docDiagnostics is one document's latest list.
type docDiagnostics struct {
	version *int32 // the document version it is for, when the editor said
	seq     uint64 // the store's count when it came
	list    []protocol.Diagnostic
}

func (d *diagStore) set(path string, version *int32, list []protocol.Diagnostic) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.byPath == nil {
		d.byPath = make(map[string]docDiagnostics)
	}
	d.seq++
	if old, ok := d.byPath[path]; ok && len(old.list) == 0 {
		d.cleared--
	}
	switch {
	case len(list) > 0:
		d.byPath[path] = docDiagnostics{version: version, seq: d.seq, list: list[:min(len(list), maxDiagnostics)]}
	case d.cleared < maxCleared:
		d.byPath[path] = docDiagnostics{version: version, seq: d.seq}
		d.cleared++
	default:
		delete(d.byPath, path)
	}
	if d.changed != nil {
		close(d.changed)
		d.changed = nil
	}
}

// next returns a channel closed when the next list comes.
func (d *diagStore) next() <-chan struct{} {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.changed == nil {
		d.changed = make(chan struct{})
	}
	return d.changed
}

// A diagSnapshot is the store at one moment.
type diagSnapshot struct {
	seq    uint64
	byPath map[string]docDiagnostics
}

func (d *diagStore) snapshot() diagSnapshot {
	d.mu.Lock()
	defer d.mu.Unlock()
	m := make(map[string]docDiagnostics, len(d.byPath))
	for p, dd := range d.byPath {
		m[p] = dd // lists are never changed once stored
	}
	return diagSnapshot{seq: d.seq, byPath: m}
}

// problems returns the problems of the file at path, or with path "", of
// every file that has some, as the harness reads them.
func (d *diagStore) problems(path string) map[string][]agent.Diagnostic {
	d.mu.Lock()
	defer d.mu.Unlock()
	out := make(map[string][]agent.Diagnostic)
	for p, dd := range d.byPath {
		if len(dd.list) > 0 && (path == "" || p == path) {
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
	path = ws.Canonical(path) // as the tools name files
	if v, open := ws.Version(path); open && p.Version != nil && *p.Version < v {
		return nil // a list for a text the editor no longer has
	}
	s.diags.set(path, p.Version, p.Diagnostics)
	return nil
}
