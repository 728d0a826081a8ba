package contract

// A LineSpan is the lines one TextEdit of a TextDocumentEdit covers, 0-based
// and inclusive: its range's start and end lines.
type LineSpan struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

// A Hunk is a group of consecutive edits of one TextDocumentEdit whose line
// ranges touch or overlap: the unit a user accepts or rejects on its own.
type Hunk struct {
	First int `json:"first"` // index of its first edit
	Last  int `json:"last"`  // index of its last edit, inclusive
	Start int `json:"start"` // first line the hunk's edits cover, 0-based
	End   int `json:"end"`   // last line, inclusive
}

// Hunks groups the edits of one TextDocumentEdit, given by their line spans
// in the order the server sends them (sorted), into hunks: edit i joins the
// hunk of edit i-1 when it starts on or before the line after the one that
// hunk ends on. Hunks are numbered from 0 in the order of the edits; the
// agentls extension of the applyEdit answer names them by these numbers,
// and users and the model see them numbered from 1.
//
// The plugins implement the same rule; docs/schema/hunks.json holds the
// vectors every implementation is tested with.
func Hunks(spans []LineSpan) []Hunk {
	var hs []Hunk
	for i, s := range spans {
		if n := len(hs); n > 0 && s.Start <= hs[n-1].End+1 {
			hs[n-1].Last = i
			hs[n-1].End = max(hs[n-1].End, s.End)
			continue
		}
		hs = append(hs, Hunk{First: i, Last: i, Start: s.Start, End: s.End})
	}
	return hs
}
