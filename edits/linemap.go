package edits

import (
	"sort"
	"strings"
)

// LineMap returns a function that takes a 0-based line of old to the line
// where it is in new: a line the change left alone moves by the lines
// inserted and deleted above it; a line whose start the change replaced
// goes to where the replacement starts. A line past the end of old moves
// by every line the change added or removed.
func LineMap(old, new string) func(line int) int {
	es := Compute(old, new)
	starts := []int{0}
	for i := 0; i < len(old); i++ {
		if old[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineOf := func(off int) int { return sort.SearchInts(starts, off+1) - 1 }
	return func(line int) int {
		d := 0
		at := len(old) + 1 // past every edit
		if line >= 0 && line < len(starts) {
			at = starts[line]
		}
		for _, e := range es {
			switch {
			case e.End <= at:
				// Above the line, or inserted at its start: it moves.
				d += strings.Count(e.New, "\n") - strings.Count(old[e.Start:e.End], "\n")
				continue
			case e.Start < at:
				// The line's start was replaced: it goes where the edit does.
				return lineOf(e.Start) + d
			}
			break
		}
		return line + d
	}
}
