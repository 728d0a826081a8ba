package edits

import (
	"slices"
	"testing"
)

func TestRebase(t *testing.T) {
	t.Parallel()
	const base = "a\nb\nc\nd\ne\n"
	tests := []struct {
		name, mine, theirs string
		want               string
		ok                 bool
	}{
		{"buffer unchanged", "a\nB\nc\nd\ne\n", base, "a\nB\nc\nd\ne\n", true},
		{"change unchanged", base, "a\nb\nc\nd\nE\n", "a\nb\nc\nd\nE\n", true},
		{"far apart", "a\nB\nc\nd\ne\n", "a\nb\nc\nd\nE\n", "a\nB\nc\nd\nE\n", true},
		{"adjacent lines", "a\nB\nc\nd\ne\n", "a\nb\nC\nd\ne\n", "a\nB\nC\nd\ne\n", true},
		{"user inserted above", "a\nb\nc\nD\ne\n", "x\ny\na\nb\nc\nd\ne\n", "x\ny\na\nb\nc\nD\ne\n", true},
		{"same line", "a\nB\nc\nd\ne\n", "a\nbb\nc\nd\ne\n", "", false},
		{"both insert at one point", "a\nb\nnew\nc\nd\ne\n", "a\nb\nother\nc\nd\ne\n", "", false},
		{"insert inside a replaced block", "a\nX\ne\n", "a\nb\nc\nins\nd\ne\n", "", false},
		{"same change on both sides", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\ne\n", true},
	}
	for _, tt := range tests {
		got, ok := Rebase(base, tt.mine, tt.theirs)
		if ok != tt.ok || got != tt.want {
			t.Errorf("%s: Rebase = %q, %v; want %q, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

// TestRebaseSome: reverting a run is rebasing its inverse change (the
// run's text → the text before it) onto the buffer; the parts the user
// changed since are left as the user left them.
func TestRebaseSome(t *testing.T) {
	t.Parallel()
	const before = "a\nb\nc\nd\ne\nf\ng\n"
	const after = "a\nB\nc\nd\ne\nF\ng\n" // the run changed b and f
	tests := []struct {
		name, theirs string
		want         string
		skipped      []LineSpan
	}{
		{"untouched since", after, before, nil},
		{"the user typed elsewhere", "a\nB\nc\nD\ne\nF\ng\n", "a\nb\nc\nD\ne\nf\ng\n", nil},
		{"the user changed one of the run's lines", "a\nB\nc\nd\ne\nFF\ng\n", "a\nb\nc\nd\ne\nFF\ng\n", []LineSpan{{6, 7}}},
		{"the user changed both", "a\nBB\nc\nd\ne\nFF\ng\n", "a\nBB\nc\nd\ne\nFF\ng\n", []LineSpan{{2, 3}, {6, 7}}},
		{"already reverted by hand", before, before, nil},
	}
	for _, tt := range tests {
		got, skipped := RebaseSome(after, before, tt.theirs)
		if got != tt.want || !slices.Equal(skipped, tt.skipped) {
			t.Errorf("%s: RebaseSome = %q, %v; want %q, %v", tt.name, got, skipped, tt.want, tt.skipped)
		}
	}
	// An inserted line the user changed is skipped as an insertion point.
	got, skipped := RebaseSome("a\nnew\nb\n", "a\nb\n", "a\nnewer\nb\n")
	if got != "a\nnewer\nb\n" || !slices.Equal(skipped, []LineSpan{{2, 3}}) {
		t.Errorf("insertion: %q, %v", got, skipped)
	}
}
