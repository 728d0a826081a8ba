package edits

import (
	"cmp"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Rebase re-applies a change computed on base (base → mine) to theirs, the
// text the editor's buffer holds now, and returns the result. It fails (ok
// false) when the user's edits and the change touch the same lines, or
// insert at the same point: the change no longer applies and the model must
// read the file again.
//
// Both sides are diffed by whole lines, so a merge never splices two edits
// into one line.
func Rebase(base, mine, theirs string) (merged string, ok bool) {
	switch {
	case theirs == base:
		return mine, true
	case mine == base, mine == theirs:
		return theirs, true
	}
	a, b := udiff.Lines(base, mine), udiff.Lines(base, theirs)
	for _, x := range a {
		for _, y := range b {
			if clash(x, y) {
				return "", false
			}
		}
	}
	all := make([]Edit, 0, len(a)+len(b))
	for _, e := range append(a, b...) {
		all = append(all, Edit{Start: e.Start, End: e.End, New: e.New})
	}
	slices.SortStableFunc(all, func(x, y Edit) int {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End))
	})
	out, err := Apply(base, all)
	if err != nil {
		return "", false // Inv: clash rules out overlaps; refuse rather than guess
	}
	return out, true
}

// clash reports whether two line edits of one text cannot both apply: they
// replace common lines, or insert at the same point, or one inserts inside
// the lines the other replaces.
func clash(x, y udiff.Edit) bool {
	xEmpty, yEmpty := x.Start == x.End, y.Start == y.End
	switch {
	case xEmpty && yEmpty:
		return x.Start == y.Start
	case xEmpty:
		return y.Start < x.Start && x.Start < y.End
	case yEmpty:
		return x.Start < y.Start && y.Start < x.End
	}
	return x.Start < y.End && y.Start < x.End
}

// RebaseSome is Rebase that goes on past a clash: the parts of the change
// (base → mine, by lines) that clash with the user's edits (base →
// theirs) are left out, the others applied to theirs. Skipped lists the
// lines of base each part left out replaced (1-based, End exclusive; an
// insertion has Start == End), in order; it is empty when the whole change
// applied.
func RebaseSome(base, mine, theirs string) (merged string, skipped []LineSpan) {
	switch {
	case theirs == base:
		return mine, nil
	case mine == base, mine == theirs:
		return theirs, nil
	}
	a, b := udiff.Lines(base, mine), udiff.Lines(base, theirs)
	all := make([]Edit, 0, len(a)+len(b))
	for _, x := range a {
		if slices.ContainsFunc(b, func(y udiff.Edit) bool { return clash(x, y) }) {
			skipped = append(skipped, LineSpan{Start: lineAt(base, x.Start), End: lineAt(base, x.End)})
			continue
		}
		all = append(all, Edit{Start: x.Start, End: x.End, New: x.New})
	}
	for _, y := range b {
		all = append(all, Edit{Start: y.Start, End: y.End, New: y.New})
	}
	slices.SortStableFunc(all, func(x, y Edit) int {
		return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End))
	})
	out, err := Apply(base, all)
	if err != nil {
		// Inv: what is kept does not clash; should it, keep the user's.
		return theirs, []LineSpan{{Start: 1, End: lineAt(base, len(base)) + 1}}
	}
	return out, skipped
}

// A LineSpan is the lines [Start, End) of a text, from 1.
type LineSpan struct{ Start, End int }

// lineAt is the 1-based line of byte offset off of s.
func lineAt(s string, off int) int {
	return strings.Count(s[:min(off, len(s))], "\n") + 1
}
