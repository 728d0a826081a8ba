// Package edits is agentls's text work: it turns old and new text into
// minimal byte edits, applies them, counts and prints diffs (stats and
// unified diffs), rebases a change onto a text that moved, and groups edits
// into hunks. It knows nothing of LSP: package edits/lspedit maps offsets to
// LSP positions and builds WorkspaceEdits.
//
// Vocabulary: an offset is a byte index into a text; an [Edit] replaces a
// byte range of an old text; a hunk is a group of edits whose lines touch or
// overlap, the unit a user accepts or rejects.
package edits

import "errors"

// ErrEdit reports edits that cannot be applied together: out of bounds, out
// of order, or overlapping.
var ErrEdit = errors.New("invalid edit")
