package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// BenchmarkCancel measures the time from the editor's agentls.cancel to the
// run's $/progress end, while the model streams (a chunk a millisecond),
// through the real stack: the server on pipes as agentls serve runs, the
// genai SDK against the fake server. It reports the median and the 99th
// percentile.
func BenchmarkCancel(b *testing.B) {
	s, _, _ := newPipeSession(b)
	ctx := b.Context()
	s.ed.Initialize(ctx, s.root, nil, nil)
	stream := geminitest.Turn{ChunkDelay: time.Millisecond}
	for i := range 10_000 {
		stream.Chunks = append(stream.Chunks, geminitest.Thought("**Step "+strings.Repeat("x", i%7)+"**\n\nthinking"))
	}
	var lat []time.Duration
	for b.Loop() {
		s.gem.Push(stream)
		from := len(s.ed.Messages())
		runID, err := s.ed.Run(ctx, map[string]any{"prompt": "think"})
		if err != nil {
			b.Fatal(err)
		}
		token := "agentls/" + runID
		// The model is streaming: its thoughts reach the progress.
		from = waitProgress(b, s.ed, from, token, "report")
		args, _ := json.Marshal(map[string]string{"runId": runID})
		start := time.Now()
		if _, err := s.ed.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: contract.CommandCancel, Arguments: []protocol.LSPAny{args}}); err != nil {
			b.Fatal(err)
		}
		waitProgress(b, s.ed, from, token, "end")
		lat = append(lat, time.Since(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99-ms")
}

// waitProgress waits for a $/progress of kind on token, at or after index
// from, and returns the index after it.
func waitProgress(b *testing.B, ed *lsptest.Editor, from int, token, kind string) int {
	b.Helper()
	ctx, cancel := context.WithTimeout(b.Context(), time.Minute)
	defer cancel()
	i, _, err := ed.Next(ctx, from, func(m lsptest.Message) bool {
		if m.Method != protocol.MethodProgress {
			return false
		}
		p := progressOf(m)
		return p.Token == token && p.Kind == kind
	})
	if err != nil {
		b.Fatalf("waiting for progress %s of %s: %v", kind, token, err)
	}
	return i + 1
}
