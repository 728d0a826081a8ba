package lsp_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp/lsptest"
)

// firstRequestBudget bounds the first model request of a run (system
// prompt, tool declarations and the task): everything the model reads
// before it does anything. Gemini CLI's is 47 KB.
const firstRequestBudget = 16 << 10

// firstRequest runs a one-turn run from a capable editor (every built-in
// tool declared) on an open file and returns the model's first request.
func firstRequest(tb testing.TB) geminitest.Request {
	tb.Helper()
	s := newSession(tb, geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	ctx := tb.Context()
	s.ed.Initialize(ctx, s.root, lsptest.FullCapabilities(), nil)
	u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "rename the function Hello to Greet", "uri": u}); err != nil {
		tb.Fatal(err)
	}
	s.ed.ProgressEnd()
	reqs := s.gem.Requests()
	if len(reqs) == 0 {
		tb.Fatal("no model request")
	}
	return reqs[0]
}

// requestParts returns the sizes of a request's parts, as JSON, and the
// number of tools it declares.
func requestParts(req geminitest.Request) (system, tools, contents, ntools int) {
	size := func(v any) int {
		b, _ := json.Marshal(v)
		return len(b)
	}
	for _, t := range req.Tools {
		ntools += len(t.FunctionDeclarations)
	}
	return size(req.SystemInstruction), size(req.Tools), size(req.Contents), ntools
}

// The first request stays within its budget with every tool declared.
// Size is not a timing, so it is asserted here; BenchmarkFirstRequest
// reports it.
func TestFirstRequestBudget(t *testing.T) {
	t.Parallel()
	req := firstRequest(t)
	system, tools, contents, ntools := requestParts(req)
	t.Logf("first request: %d bytes (system %d, %d tools %d, contents %d)", len(req.Body), system, ntools, tools, contents)
	if ntools < 8 {
		t.Errorf("%d tools declared, want the built-in set (at least 8)", ntools)
	}
	if len(req.Body) > firstRequestBudget {
		t.Errorf("first request is %d bytes, over the %d-byte budget", len(req.Body), firstRequestBudget)
	}
}

// BenchmarkFirstRequest measures a one-turn run through the LSP stack
// (execute command → model call → progress end) and reports the size of
// the first model request in bytes.
func BenchmarkFirstRequest(b *testing.B) {
	var req geminitest.Request
	for b.Loop() {
		req = firstRequest(b)
	}
	system, tools, _, ntools := requestParts(req)
	b.ReportMetric(float64(len(req.Body)), "req-bytes")
	b.ReportMetric(float64(system), "system-bytes")
	b.ReportMetric(float64(tools), "tools-bytes")
	b.ReportMetric(float64(ntools), "tools")
}
