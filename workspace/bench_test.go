package workspace

import (
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// docText returns a 1,000-line Go-like document, different for each i.
func docText(i int) string {
	var b strings.Builder
	for line := range 1000 {
		fmt.Fprintf(&b, "\tv%d := compute(%d, %q) // line %d\n", line, i, "日本", line)
	}
	// Exact size, as a decoded JSON string would be, not the builder's
	// doubled capacity.
	return strings.Clone(b.String())
}

// BenchmarkOpen1000Docs opens 1,000 documents of 1,000 lines each. The time
// and allocations are the overlay's own cost (the texts are built once, as
// the JSON decoder hands them over); heap-B/doc is the live heap each open
// document costs, text included, and text-B/doc the text's share of it.
func BenchmarkOpen1000Docs(b *testing.B) {
	const docs = 1000
	root := b.TempDir()
	paths := make([]string, docs)
	texts := make([]string, docs)
	textBytes := 0
	for i := range docs {
		paths[i] = filepath.Join(root, fmt.Sprintf("pkg%d", i%30), fmt.Sprintf("file%d.go", i))
		texts[i] = docText(i)
		textBytes += len(texts[i])
	}

	b.ReportAllocs()
	for b.Loop() {
		w, err := New(root)
		if err != nil {
			b.Fatal(err)
		}
		for i := range docs {
			w.Open(paths[i], texts[i], 1)
		}
	}

	// Measured once, outside the timed loop: ReadMemStats stops the world.
	texts = nil
	before := liveHeap()
	w, err := New(root)
	if err != nil {
		b.Fatal(err)
	}
	for i := range docs {
		w.Open(paths[i], docText(i), 1) // a fresh text, as from the wire
	}
	after := liveHeap()
	runtime.KeepAlive(w)
	b.ReportMetric(float64(after-before)/docs, "heap-B/doc")
	b.ReportMetric(float64(textBytes)/docs, "text-B/doc")
}

// liveHeap returns the bytes of reachable heap objects after a collection.
func liveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
