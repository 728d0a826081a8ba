package lsp_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// BenchmarkCodeAction measures textDocument/codeAction on a 10,000-line
// document with a selection and diagnostics, while 8 runs stream thoughts
// (and agentls/event notifications) over the same connection. It reports
// the 99th percentile latency: code actions must stay cheap (no model call,
// no document scan) and never wait behind runs.
func BenchmarkCodeAction(b *testing.B) {
	const runs = 8
	var turns []geminitest.Turn
	for range runs {
		var chunks []geminitest.Chunk
		for i := range 20000 {
			chunks = append(chunks, geminitest.Thought(fmt.Sprintf("**Step %d**\n\nthinking", i)))
		}
		turns = append(turns, geminitest.Turn{Chunks: chunks, ChunkDelay: time.Millisecond})
	}
	s := newSession(b, turns...)
	ctx := b.Context()
	s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
	var doc strings.Builder
	for i := range 10000 {
		fmt.Fprintf(&doc, "\tx%d := compute(%d) // line %d of a long file\n", i, i, i)
	}
	u := s.ed.Open(ctx, filepath.Join(s.root, "big.go"), doc.String())
	for range runs {
		if _, err := s.ed.Run(ctx, map[string]any{"prompt": "think", "uri": u}); err != nil {
			b.Fatal(err)
		}
	}
	// Wait until every run streams.
	seen := map[string]bool{}
	s.ed.WaitFor("8 streaming runs", func(m lsptest.Message) bool {
		if m.Method == protocol.MethodProgress && strings.Contains(string(m.Params), `"report"`) {
			seen[progressOf(m).Token] = true
		}
		return len(seen) == runs
	})
	params := &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: u},
		Range:        protocol.Range{Start: protocol.Position{Line: 5000}, End: protocol.Position{Line: 5010, Character: 4}},
		Context: protocol.CodeActionContext{Diagnostics: []protocol.Diagnostic{
			{Range: protocol.Range{Start: protocol.Position{Line: 5001}, End: protocol.Position{Line: 5001, Character: 8}}, Message: protocol.String("x5001 declared and not used")},
			{Range: protocol.Range{Start: protocol.Position{Line: 5002}, End: protocol.Position{Line: 5002, Character: 8}}, Message: protocol.String("x5002 declared and not used")},
		}},
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		start := time.Now()
		actions, err := s.ed.Server.CodeAction(ctx, params)
		lat = append(lat, time.Since(start))
		if err != nil || len(actions) != 7 {
			b.Fatalf("codeAction: %d actions, %v", len(actions), err)
		}
	}
	slices.Sort(lat)
	p99 := lat[min(len(lat)-1, len(lat)*99/100)]
	b.ReportMetric(float64(p99.Microseconds())/1000, "p99-ms")
}
