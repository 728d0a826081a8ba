package edits

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sizes are the file lengths, in lines, that the benchmarks measure.
var sizes = []int{10_000, 100_000}

func BenchmarkCompute(b *testing.B) {
	for _, n := range sizes {
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			old, new := scattered(n, 100)
			b.ReportAllocs()
			b.SetBytes(int64(len(old)))
			for b.Loop() {
				Compute(old, new)
			}
		})
	}
	// Two unrelated texts that share many short lines are the worst case
	// for the repeated line diff; its budget keeps this linear.
	b.Run("unrelated", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		text := func() string {
			var s strings.Builder
			for range 20_000 {
				if r.IntN(4) == 0 {
					s.WriteString("}\n")
				} else {
					fmt.Fprintf(&s, "x%d\n", r.Int())
				}
			}
			return s.String()
		}
		old, new := text(), text()
		b.ReportAllocs()
		for b.Loop() {
			Compute(old, new)
		}
	})
}
