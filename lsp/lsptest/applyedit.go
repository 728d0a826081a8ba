package lsptest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"sort"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/edits/lspedit"
)

// applyEdit answers workspace/applyEdit: it asks Decide, then applies the
// edit to its buffers the way an editor does (checking versions), and tells
// the server about the changed buffers with didOpen/didChange.
func (e *Editor) applyEdit(ctx context.Context, p *protocol.ApplyWorkspaceEditParams) (any, error) {
	var a Answer
	if e.Decide != nil {
		a = e.Decide(p)
	}
	return e.Apply(ctx, p, a)
}

// Apply answers an applyEdit request as a says: it applies the edit (or the
// parts a partial decision keeps) to the buffers and tells the server, and
// returns the reply.
func (e *Editor) Apply(ctx context.Context, p *protocol.ApplyWorkspaceEditParams, a Answer) (any, error) {
	switch {
	case a.Error != nil:
		return nil, a.Error
	case a.Reject:
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &a.Reason}, nil
	case a.Stale:
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
	partial := a.RejectHunks != nil || a.EditHunks != nil
	we := p.Edit
	if partial {
		we = keepHunks(we, a)
	}
	plan, err := e.plan(we)
	if err != nil {
		reason := err.Error()
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}
	for _, u := range plan.order {
		if plan.deleted[u] {
			e.remove(ctx, u)
			continue
		}
		if a.Late {
			e.applyLate(u, plan.texts[u])
			continue
		}
		e.commit(ctx, u, plan.texts[u], plan.created[u])
	}
	if !partial {
		return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
	}
	res := &PartialResult{Applied: true}
	for _, u := range plan.order {
		text := plan.texts[u]
		res.Agentls.Files = append(res.Agentls.Files, PartialFile{URI: u, Text: text, RejectedHunks: a.RejectHunks, EditedHunks: sortedKeys(a.EditHunks)})
	}
	return res, nil
}

// applyLate puts text in u's buffer (opened from the disk if need be, as
// eglot visits a file to edit it) without telling the server yet.
func (e *Editor) applyLate(u uri.URI, text string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	d, open := e.docs[u]
	if !open {
		d = &doc{}
		e.docs[u] = d
	}
	d.text = text
	if e.late == nil {
		e.late = make(map[uri.URI]lateEdit)
	}
	e.late[u] = lateEdit{opened: !open && !e.late[u].opened}
}

// A lateEdit is a buffer a Late edit changed, not told yet; opened: the
// buffer was opened for it, and the server has not seen it open.
type lateEdit struct{ opened bool }

// Sync sends the didChange a Late edit held back for u: the buffer's whole
// text (a version later than the server knows). It reports whether there
// was one.
func (e *Editor) Sync(ctx context.Context, u uri.URI) bool {
	e.mu.Lock()
	l, ok := e.late[u]
	delete(e.late, u)
	var text string
	if d := e.docs[u]; d != nil {
		text = d.text
		if l.opened {
			d.version = 1
		}
	}
	e.mu.Unlock()
	switch {
	case !ok:
	case l.opened:
		e.Server.DidOpen(ctx, &protocol.DidOpenTextDocumentParams{TextDocument: protocol.TextDocumentItem{
			URI: u, LanguageID: "go", Version: 1, Text: text}})
	default:
		e.Type(ctx, u, text)
	}
	return ok
}

// PartialResult is an ApplyWorkspaceEditResult with the agentls extension
// (docs/protocol.md): each file's final text after a partial decision.
type PartialResult struct {
	Applied bool `json:"applied"`
	Agentls struct {
		Files []PartialFile `json:"files"`
	} `json:"agentls"`
}

// A PartialFile is one file of the agentls extension.
type PartialFile struct {
	URI           uri.URI `json:"uri"`
	Text          string  `json:"text"`
	RejectedHunks []int   `json:"rejectedHunks"`
	EditedHunks   []int   `json:"editedHunks"`
}

// Hunks groups the edits of one TextDocumentEdit the way the agentls
// extension counts them: consecutive edits whose line ranges touch (the
// next starts at most one line after the previous ends) or overlap. It
// returns the hunk number of each edit.
func Hunks(tes []protocol.TextEdit) []int {
	out := make([]int, len(tes))
	n, end := -1, uint32(0)
	for i, te := range tes {
		if n < 0 || te.Range.Start.Line > end+1 {
			n++
			end = te.Range.End.Line
		} else {
			end = max(end, te.Range.End.Line)
		}
		out[i] = n
	}
	return out
}

// keepHunks returns we with the rejected hunks of each document edit left
// out and the edited hunks replaced by one edit with the user's text.
func keepHunks(we protocol.WorkspaceEdit, a Answer) protocol.WorkspaceEdit {
	out := we
	out.DocumentChanges = nil
	for _, dc := range we.DocumentChanges {
		tde, ok := dc.(*protocol.TextDocumentEdit)
		if !ok {
			out.DocumentChanges = append(out.DocumentChanges, dc)
			continue
		}
		tes := plainEdits(tde.Edits)
		hunk := Hunks(tes)
		var kept []protocol.TextDocumentEditElement
		for i := 0; i < len(tes); i++ {
			h := hunk[i]
			if slices.Contains(a.RejectHunks, h) {
				continue
			}
			if text, ok := a.EditHunks[h]; ok {
				j := i
				for j+1 < len(tes) && hunk[j+1] == h {
					j++
				}
				kept = append(kept, &protocol.TextEdit{Range: protocol.Range{Start: tes[i].Range.Start, End: tes[j].Range.End}, NewText: text})
				i = j
				continue
			}
			te := tes[i]
			kept = append(kept, &te)
		}
		c := *tde
		c.Edits = kept
		out.DocumentChanges = append(out.DocumentChanges, &c)
	}
	return out
}

func plainEdits(els []protocol.TextDocumentEditElement) []protocol.TextEdit {
	var tes []protocol.TextEdit
	for _, el := range els {
		switch x := el.(type) {
		case *protocol.TextEdit:
			tes = append(tes, *x)
		case *protocol.AnnotatedTextEdit:
			tes = append(tes, x.TextEdit)
		}
	}
	return tes
}

func sortedKeys(m map[int]string) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// An editPlan is a WorkspaceEdit checked and computed against the buffers,
// not yet applied.
type editPlan struct {
	order   []uri.URI
	texts   map[uri.URI]string
	created map[uri.URI]bool
	deleted map[uri.URI]bool
}

func (e *Editor) plan(we protocol.WorkspaceEdit) (*editPlan, error) {
	pl := &editPlan{texts: make(map[uri.URI]string), created: make(map[uri.URI]bool), deleted: make(map[uri.URI]bool)}
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
		if errors.Is(err, fs.ErrNotExist) && version == nil {
			return "", nil // a new buffer for a file that does not exist yet, as Emacs does
		}
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
		out, err := lspedit.ApplyTextEdits(text, tes, e.enc)
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
			tes := plainEdits(c.Edits)
			if len(tes) != len(c.Edits) {
				return nil, fmt.Errorf("unsupported edit in %v", c.Edits)
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
		case *protocol.DeleteFile:
			if _, err := os.Stat(c.URI.FsPath()); err != nil {
				return nil, fmt.Errorf("delete %s: %w", c.URI, err)
			}
			pl.order = append(pl.order, c.URI)
			pl.deleted[c.URI] = true
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

// remove deletes a file, closing its buffer first as an editor does.
func (e *Editor) remove(ctx context.Context, u uri.URI) {
	e.mu.Lock()
	_, open := e.docs[u]
	delete(e.docs, u)
	e.mu.Unlock()
	if open {
		e.Server.DidClose(ctx, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
	}
	os.Remove(u.FsPath())
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
