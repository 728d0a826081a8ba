// Package edits turns old and new text into minimal LSP text edits, maps byte offsets to and from LSP positions, builds WorkspaceEdits and prints unified diffs.
//
// Vocabulary: an offset is a byte index into a text; a position is an LSP
// (line, character) pair whose character unit is set by an Encoding; an Edit
// replaces a byte range of an old text; a TextEdit is the same change in LSP
// positions. Offsets are used everywhere inside; positions appear only at the
// edge, through a Mapper.
package edits

import "errors"

var (
	// ErrPosition reports an offset or position that does not denote a point
	// of the text: out of range, inside a UTF-8 sequence, inside a UTF-16
	// surrogate pair, or between the "\r" and "\n" of a line break.
	ErrPosition = errors.New("invalid position")

	// ErrEdit reports edits that cannot be applied together: out of bounds,
	// out of order, or overlapping.
	ErrEdit = errors.New("invalid edit")

	// ErrNoChange reports a WorkspaceEdit request whose files are all unchanged.
	ErrNoChange = errors.New("no change")
)
