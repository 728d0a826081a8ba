package lsp_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/workspace"
)

// BenchmarkDidOpenBig sends one didOpen of each size through a server on
// pipes, as `agentls serve` reads it, and waits for the answer to a request
// sent after it: ns/op is the whole didOpen, from the frame's first byte to
// the document in the overlay (the frame is encoded before the clock
// starts). bench/lspmem -big gives the same figure for the binary, with
// its memory.
func BenchmarkDidOpenBig(b *testing.B) {
	for _, mb := range []int{10, 200} {
		b.Run(fmt.Sprintf("MB=%d", mb), func(b *testing.B) {
			if mb > 10 && testing.Short() {
				b.Skip("large")
			}
			w := newWire(b, lsp.Config{Version: "test"})
			root := b.TempDir()
			w.initialize(root)
			var sb strings.Builder
			for line := 0; sb.Len() < mb<<20; line++ {
				fmt.Fprintf(&sb, "\tv%d := compute(%d, %q) // line %d\n", line, line*7, "日本", line)
			}
			params, err := json.Marshal(map[string]any{"textDocument": map[string]any{
				"uri": workspace.URIFromPath(filepath.Join(root, "big.go")), "languageId": "go", "version": 1, "text": sb.String()}})
			if err != nil {
				b.Fatal(err)
			}
			// Bytes, written as they are: a string would be copied by
			// every write.
			open := []byte(frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":` + string(params) + `}`))
			sb.Reset()
			params = nil
			b.SetBytes(int64(mb << 20))
			for b.Loop() {
				if _, err := w.in.Write(open); err != nil {
					b.Fatal(err)
				}
				w.call("shutdown", "null") // answered after the didOpen is handled
			}
		})
	}
}
