package lsptest

import (
	"context"
	"fmt"
	"os"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits"
)

// applyEdit answers workspace/applyEdit: it asks Decide, then applies the
// edit to its buffers the way an editor does (checking versions), and tells
// the server about the changed buffers with didOpen/didChange.
func (e *Editor) applyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (any, error) {
	if e.Decide != nil {
		a := e.Decide(p)
		if a.Error != nil {
			return nil, a.Error
		}
		if a.Reject {
			return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &a.Reason}, nil
		}
	}
	plan, err := e.plan(p.Edit)
	if err != nil {
		reason := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	for _, u := range plan.order {
		e.commit(ctx, u, plan.texts[u], plan.created[u])
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
}

// An editPlan is a WorkspaceEdit checked and computed against the buffers,
// not yet applied.
type editPlan struct {
	order   []uri.URI
	texts   map[uri.URI]string
	created map[uri.URI]bool
}

func (e *Editor) plan(we protocol.WorkspaceEdit) (*editPlan, error) {
	pl := &editPlan{texts: make(map[uri.URI]string), created: make(map[uri.URI]bool)}
	current := func(u uri.URI, version *int32) (string, error) {
		if t, ok := pl.texts[u]; ok {
			return t, nil
		}
		e.mu.Lock()
		d, open := e.docs[u]
		e.mu.Unlock()
		if open {
			if version != nil && *version != d.version {
				return "", fmt.Errorf("version mismatch on %s: edit for %d, buffer at %d", u, *version, d.version)
			}
			return d.text, nil
		}
		b, err := os.ReadFile(u.FsPath())
		if err != nil {
			return "", err
		}
		return string(b), nil
	}
	apply := func(u uri.URI, version *int32, tes []protocol.TextEdit) error {
		text, err := current(u, version)
		if err != nil {
			return err
		}
		out, err := edits.ApplyTextEdits(text, tes, e.enc)
		if err != nil {
			return fmt.Errorf("%s: %w", u, err)
		}
		if _, seen := pl.texts[u]; !seen {
			pl.order = append(pl.order, u)
		}
		pl.texts[u] = out
		return nil
	}
	for _, dc := range we.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			var tes []protocol.TextEdit
			for _, el := range c.Edits {
				switch x := el.(type) {
				case *protocol.TextEdit:
					tes = append(tes, *x)
				case *protocol.AnnotatedTextEdit:
					tes = append(tes, x.TextEdit)
				default:
					return nil, fmt.Errorf("unsupported edit %T", el)
				}
			}
			if err := apply(c.TextDocument.URI, c.TextDocument.Version, tes); err != nil {
				return nil, err
			}
		case *protocol.CreateFile:
			if _, err := os.Stat(c.URI.FsPath()); err == nil {
				return nil, fmt.Errorf("create %s: file exists", c.URI)
			}
			pl.order = append(pl.order, c.URI)
			pl.texts[c.URI] = ""
			pl.created[c.URI] = true
		default:
			return nil, fmt.Errorf("unsupported document change %T", dc)
		}
	}
	uris := make([]uri.URI, 0, len(we.Changes))
	for u := range we.Changes {
		uris = append(uris, u)
	}
	sort.Slice(uris, func(i, j int) bool { return uris[i] < uris[j] })
	for _, u := range uris {
		if err := apply(u, nil, we.Changes[u]); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// commit puts a planned text in the buffer and tells the server: a created
// file is created empty on disk and opened; a buffer that was not open is
// opened first, like an editor that applies an edit to a closed file.
func (e *Editor) commit(ctx context.Context, u uri.URI, text string, created bool) {
	if created {
		os.WriteFile(u.FsPath(), nil, 0o644)
	}
	if _, open := e.Buffer(u); !open {
		disk, _ := os.ReadFile(u.FsPath())
		e.mu.Lock()
		e.docs[u] = &doc{text: string(disk), version: 1}
		e.mu.Unlock()
		e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: "go", Version: 1, Text: string(disk)}})
	}
	if cur, _ := e.Buffer(u); cur == text {
		return
	}
	e.Type(ctx, u, text)
}
