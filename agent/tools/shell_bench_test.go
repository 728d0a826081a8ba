//go:build linux

package tools

import (
	"context"
	"io"
	"os"
	"testing"
	"time"
)

// What the supervisor costs a command: `true` under it, and in a bare
// process group as before. BENCHMARKS.md has the figures.
func BenchmarkShell(b *testing.B) {
	dir := b.TempDir()
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, bm := range []struct {
		name string
		run  func() shellRun
	}{
		{"supervised", func() shellRun { return execShell(context.Background(), "true", dir, env, time.Minute, io.Discard) }},
		{"group", func() shellRun {
			return execGroup(context.Background(), shellPath(), "true", dir, env, time.Minute, io.Discard)
		}},
	} {
		b.Run(bm.name, func(b *testing.B) {
			for b.Loop() {
				if r := bm.run(); r.err != nil || r.exit != 0 {
					b.Fatalf("%+v", r)
				}
			}
		})
	}
}
