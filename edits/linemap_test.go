package edits

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestLineMap(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new string
		want           []int // where lines 0… of old go; the last is past the end
	}{
		{"equal", "a\nb\n", "a\nb\n", []int{0, 1, 2, 3}},
		{"line inserted above", "a\nb\nc\n", "a\nx\ny\nb\nc\n", []int{0, 3, 4, 5, 6}},
		{"inserted at a line's start", "a\nb\n", "x\na\nb\n", []int{1, 2, 3, 4}},
		{"line deleted", "a\nb\nc\nd\n", "a\nd\n", []int{0, 1, 1, 1, 2}},
		{"lines joined", "a\nb\nc\n", "a b\nc\n", []int{0, 0, 1, 2, 3}},
		{"changed inside a line", "func Hello() {}\nx\n", "func Greet() {}\nx\n", []int{0, 1, 2, 3}},
		{"everything replaced", "a\nb\n", "x\n", []int{0, 0, 1, 2}},
		{"no trailing newline", "a\nb", "z\na\nb", []int{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := LineMap(tt.old, tt.new)
			got := make([]int, len(tt.want))
			for i := range got {
				got[i] = m(i)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("LineMap(%q, %q) (-want +got):\n%s", tt.old, tt.new, diff)
			}
		})
	}
}
