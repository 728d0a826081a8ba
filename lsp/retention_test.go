package lsp_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// TestTracesPruned checks a run prunes the trace folder with the user's
// retention settings, without waiting for it: the prune is done when the
// server has ended, and the run's own trace is kept.
func TestTracesPruned(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	now := time.Now()
	old := filepath.Join(dir, "0123456789ab", "old.jsonl")
	recent := filepath.Join(dir, "0123456789ab", "recent.jsonl")
	for p, age := range map[string]time.Duration{old: 15 * 24 * time.Hour, recent: 5 * 24 * time.Hour} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}

	gem := geminitest.NewServer(t, geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	srv := lsp.New(lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model, Getenv: func(string) string { return "" }})
		},
		Version:  "test",
		TraceDir: dir,
	})
	serverSide, clientSide := jsonrpc2.NewChannelStreamPair(64)
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- srv.ServeStream(ctx, serverSide, stop) }()
	ed := lsptest.New(t, clientSide)
	root := t.TempDir()
	ed.Initialize(ctx, root, nil, map[string]any{"traceMaxAgeDays": 10})
	if _, err := ed.Run(ctx, map[string]any{"prompt": "hi"}); err != nil {
		t.Fatal(err)
	}
	ed.ProgressEnd()
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}

	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("a trace older than traceMaxAgeDays is still there: %v", err)
	}
	if _, err := os.Stat(recent); err != nil {
		t.Errorf("a younger trace is gone: %v", err)
	}
	files, err := trace.List(dir, root)
	if err != nil || len(files) != 1 {
		t.Errorf("the run's own trace: %v, %v", files, err)
	}
}
