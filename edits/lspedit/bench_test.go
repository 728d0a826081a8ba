package lspedit

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agentls/agentls/edits"
)

// sizes are the file lengths, in lines, that the benchmarks measure.
var sizes = []int{10_000, 100_000}

// scattered is a text of n lines and a copy with changes lines changed, spread
// evenly.
func scattered(n, changes int) (old, new string) {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	old = strings.Join(lines, "")
	for k := range changes {
		i := k*(n/changes) + n/changes/2
		lines[i] = strings.Replace(lines[i], "quick", "slow", 1)
	}
	return old, strings.Join(lines, "")
}

func BenchmarkTextEdits(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			old, new := scattered(n, 100)
			es := edits.Compute(old, new)
			b.ReportAllocs()
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				if _, err := TextEdits(old, es, UTF16); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkApplyTextEdits(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			old, new := scattered(n, 100)
			tes, err := TextEdits(old, edits.Compute(old, new), UTF16)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				if _, err := ApplyTextEdits(old, tes, UTF16); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
