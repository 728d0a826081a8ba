package lspedit

import "github.com/agentls/agentls/edits"

// lineHunks merges edits into one edit per hunk, each replacing whole lines
// of old: from the start of the hunk's first line to the end of its last
// line (before the line break). A hunk is docs/protocol.md's: after an edit
// that reaches line E, the next edit joins the hunk when it starts on line
// E+1 or before. The merged edits span the same lines as the hunks they
// replace, so they group into the same hunks, one edit each: a client that
// shows one choice per edit (VS Code's refactor preview) shows one per hunk,
// never one per character. The edits must be sorted and non-overlapping, as
// edits.Compute returns them.
func lineHunks(old string, es []edits.Edit) []edits.Edit {
	if len(es) == 0 {
		return es
	}
	lines := NewMapper(old).l
	line := lines.LineOf
	var out []edits.Edit
	first, end := 0, line(es[0].End) // the hunk's first edit, and the last line it reaches
	flush := func(last int) {
		start, _ := lines.Line(line(es[first].Start))
		_, stop := lines.Line(end)
		var b []byte
		at := start
		for _, e := range es[first : last+1] {
			b = append(b, old[at:e.Start]...)
			b = append(b, e.New...)
			at = e.End
		}
		b = append(b, old[at:stop]...)
		out = append(out, edits.Edit{Start: start, End: stop, New: string(b)})
	}
	for i := 1; i < len(es); i++ {
		if line(es[i].Start) <= end+1 {
			end = max(end, line(es[i].End))
			continue
		}
		flush(i - 1)
		first, end = i, line(es[i].End)
	}
	flush(len(es) - 1)
	return out
}
