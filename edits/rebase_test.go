package edits

import "testing"

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
