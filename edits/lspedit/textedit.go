package lspedit

import (
	"github.com/agentls/agentls/edits"

	"cmp"
	"fmt"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// TextEdits converts byte edits against old into LSP text edits against old,
// in the same order. The edits must satisfy Apply's rules. An edit that
// starts or ends inside a UTF-8 sequence or a "\r\n" pair is widened to the
// enclosing boundary (with the same result), since LSP cannot point there.
func TextEdits(old string, es []edits.Edit, enc Encoding) ([]protocol.TextEdit, error) {
	es, err := edits.Normalize(old, es)
	if err != nil {
		return nil, err
	}
	if len(es) == 0 {
		return nil, nil
	}
	m := NewMapper(old)
	var c cursor // edits are sorted, so each line is scanned once
	out := make([]protocol.TextEdit, len(es))
	for i, e := range es {
		start, err := m.offsetPosition(e.Start, enc, &c)
		if err != nil {
			return nil, err
		}
		end, err := m.offsetPosition(e.End, enc, &c)
		if err != nil {
			return nil, err
		}
		out[i] = protocol.TextEdit{Range: protocol.Range{Start: start, End: end}, NewText: e.New}
	}
	return out, nil
}

// ApplyTextEdits applies LSP text edits, all relative to text, and returns
// the new text. As the LSP specification allows, the edits may come in any
// order: they are sorted stably by start, then end, so an insertion comes
// before a replacement at the same point and insertions at one point keep
// their order. Overlapping edits are an error wrapping edits.ErrEdit; bad
// positions are errors wrapping ErrPosition.
func ApplyTextEdits(text string, tes []protocol.TextEdit, enc Encoding) (string, error) {
	if len(tes) == 0 {
		return text, nil
	}
	m := NewMapper(text)
	var c cursor
	es := make([]edits.Edit, len(tes))
	for i, te := range tes {
		start, end, err := m.rangeOffsets(te.Range, enc, &c)
		if err != nil {
			return "", fmt.Errorf("text edit %d: %w", i, err)
		}
		es[i] = edits.Edit{Start: start, End: end, New: te.NewText}
	}
	order := make([]int, len(es)) // indexes into tes, for error messages
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(es[a].Start, es[b].Start), cmp.Compare(es[a].End, es[b].End))
	})
	size := len(text)
	for _, e := range es {
		size += len(e.New) - (e.End - e.Start)
	}
	var b strings.Builder
	b.Grow(max(size, 0))
	last := 0
	for k, i := range order {
		e := es[i]
		if e.Start < last {
			prev := order[k-1]
			return "", fmt.Errorf("%w: text edit %d %s overlaps text edit %d %s",
				edits.ErrEdit, i, fmtRange(tes[i].Range), prev, fmtRange(tes[prev].Range))
		}
		b.WriteString(text[last:e.Start])
		b.WriteString(e.New)
		last = e.End
	}
	b.WriteString(text[last:])
	return b.String(), nil
}

func fmtRange(r protocol.Range) string { return fmtPos(r.Start) + "-" + fmtPos(r.End) }
