package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/edits/lspedit"
)

// hunksOf groups a TextDocumentEdit's edits into hunks, as the contract
// numbers them. The edits must be sorted, as the server sends them.
func hunksOf(tes []protocol.TextEdit) []contract.Hunk {
	spans := make([]contract.LineSpan, len(tes))
	for i, te := range tes {
		spans[i] = contract.LineSpan{Start: int(te.Range.Start.Line), End: int(te.Range.End.Line)}
	}
	return contract.Hunks(spans)
}

// fileTextEdits returns the text edits the server sends for a change of old
// to new: the edits hunks are counted over.
func fileTextEdits(old, new string, enc lspedit.Encoding) []protocol.TextEdit {
	tes, err := lspedit.TextEdits(old, edits.Compute(old, new), enc)
	if err != nil {
		return nil
	}
	return tes
}

// describeHunks names hunks for the model: "hunk 2 of 3 (lines 10-12)".
func describeHunks(hs []contract.Hunk, idx []int) string {
	var parts []string
	for _, i := range idx {
		if i < 0 || i >= len(hs) {
			parts = append(parts, fmt.Sprintf("hunk %d (unknown)", i+1))
			continue
		}
		h := hs[i]
		lines := fmt.Sprintf("line %d", h.Start+1)
		if h.End > h.Start {
			lines = fmt.Sprintf("lines %d-%d", h.Start+1, h.End+1)
		}
		parts = append(parts, fmt.Sprintf("hunk %d of %d (%s)", i+1, len(hs), lines))
	}
	return strings.Join(parts, ", ")
}

// partialMessage tells the model what the user made of a proposal before
// accepting it: which hunks were rejected or edited, and what was applied,
// as a diff against the file before the proposal.
func partialMessage(name, old, proposed, final string, enc lspedit.Encoding, rejected, edited []int) string {
	hs := hunksOf(fileTextEdits(old, proposed, enc))
	var b strings.Builder
	fmt.Fprintf(&b, "The user applied your change to %s only in part.", name)
	if len(rejected) > 0 {
		fmt.Fprintf(&b, " Rejected: %s.", describeHunks(hs, rejected))
	}
	if len(edited) > 0 {
		fmt.Fprintf(&b, " Edited by the user: %s.", describeHunks(hs, edited))
	}
	if len(rejected) == 0 && len(edited) == 0 {
		b.WriteString(" The file differs from what you proposed.")
	}
	fmt.Fprintf(&b, " What was applied, against the file before your change:\n```diff\n%s```\nRead the file again before changing it further.", edits.Unified(name, old, final))
	return b.String()
}
