// Package lspedit is the LSP side of edits: it maps byte offsets to and from
// LSP positions (a [Mapper] per text, in the [Encoding] the client
// negotiated), turns byte edits into TextEdits and back, and builds
// WorkspaceEdits. Package edits does the text work (diffs, applying, stats,
// rebasing, hunks) and knows nothing of LSP; this package is the only one
// the harness never imports.
//
// Vocabulary: an offset is a byte index into a text; a position is an LSP
// (line, character) pair whose character unit is set by an Encoding; a
// TextEdit is an [edits.Edit] in LSP positions. Offsets are used everywhere
// inside; positions appear only at the edge, through a Mapper.
package lspedit

import "errors"

var (
	// ErrPosition reports an offset or position that does not denote a point
	// of the text: out of range, inside a UTF-8 sequence, inside a UTF-16
	// surrogate pair, or between the "\r" and "\n" of a line break.
	ErrPosition = errors.New("invalid position")

	// ErrNoChange reports a WorkspaceEdit request whose files are all unchanged.
	ErrNoChange = errors.New("no change")
)
