package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"go.uber.org/goleak"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
)

// The load figures: runs at once, chunks each run streams before its
// proposal, and code action requests a second meanwhile. They hold under
// -race too (about 5 s on 2 cores).
const (
	loadRuns        = 16
	loadChunks      = 1000
	loadActionEvery = 10 * time.Millisecond
)

// TestLoad runs 16 runs at once over one connection (the server on pipes,
// as agentls serve), each streaming 1,000 chunks (thoughts and text) and
// then proposing a change to its own file, while the editor asks for code
// actions 100 times a second. Every run must end with its goal and its
// change in the editor's buffer, every code action must be answered, no
// goroutine may outlive the session, and the live heap must come back near
// where it started. Timings are logged, never asserted (BENCHMARKS.md has
// them). Not parallel: the leak and heap checks need the package quiet.
func TestLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	before := goleak.IgnoreCurrent()
	base := liveHeap()
	t.Run("runs", func(t *testing.T) { loadRuns16(t, loadChunks) })
	goleak.VerifyNone(t, before)
	after := liveHeap()
	t.Logf("live heap: %.1f MiB before, %.1f MiB after", mib(base), mib(after))
	if after > base+8<<20 {
		t.Errorf("live heap grew from %.1f MiB to %.1f MiB", mib(base), mib(after))
	}
}

func loadRuns16(t *testing.T, chunks int) {
	ctx := t.Context()
	var gems []*geminitest.Server
	for i := range loadRuns {
		var cs []geminitest.Chunk
		for k := range chunks {
			if k%2 == 0 {
				cs = append(cs, geminitest.Thought(fmt.Sprintf("**Step %d of run %d**\n\nthinking about it", k, i)))
			} else {
				cs = append(cs, geminitest.Text(fmt.Sprintf("word %d ", k)))
			}
		}
		cs = append(cs, geminitest.Call("replace", map[string]any{"file_path": loadFile(i), "old_string": loadFunc("F", i), "new_string": loadFunc("G", i)}))
		gems = append(gems, geminitest.NewServer(t, geminitest.Reply(cs...),
			geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": fmt.Sprintf("run %d done", i)}))))
	}
	// Runs start one after another: the i-th gets the i-th model.
	var started atomic.Int32
	ed, _, _ := newPipeServer(t, lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			gem := gems[started.Add(1)-1]
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model, Getenv: func(string) string { return "" }})
		},
		UserConfigDir: t.TempDir(), CacheDir: t.TempDir(),
	})
	root := t.TempDir()
	ed.Initialize(ctx, root, nil, map[string]any{"events": true})
	uris := make([]uri.URI, loadRuns)
	for i := range loadRuns {
		path := filepath.Join(root, loadFile(i))
		os.WriteFile(path, []byte(loadText("F", i)), 0o644)
		uris[i] = ed.Open(ctx, path, loadText("F", i))
	}

	// Code actions, 100 a second, until every run has ended.
	stop := make(chan struct{})
	var (
		actions sync.WaitGroup
		lat     []time.Duration
		failed  atomic.Int32
	)
	actions.Go(func() {
		tick := time.NewTicker(loadActionEvery)
		defer tick.Stop()
		params := &protocol.CodeActionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: uris[0]},
			Range:        protocol.Range{End: protocol.Position{Line: 2}},
		}
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			start := time.Now()
			as, err := ed.Server.CodeAction(ctx, params)
			lat = append(lat, time.Since(start))
			if err != nil || len(as) == 0 {
				failed.Add(1)
			}
		}
	})

	begin := time.Now()
	for i := range loadRuns {
		if _, err := ed.Run(ctx, map[string]any{"prompt": "rename " + loadFunc("F", i), "uri": uris[i]}); err != nil {
			t.Fatal(err)
		}
	}
	ends := 0
	ed.WaitFor("every run's end", func(m lsptest.Message) bool {
		if m.Method == contract.MethodEvent && strings.Contains(string(m.Params), `"type":"run_end"`) {
			ends++
			if !strings.Contains(string(m.Params), `"reason":"goal"`) {
				t.Errorf("run_end: %.300s", m.Params)
			}
		}
		return ends == loadRuns
	})
	elapsed := time.Since(begin)
	close(stop)
	actions.Wait()

	for i, u := range uris {
		if got, _ := ed.Buffer(u); got != loadText("G", i) {
			t.Errorf("%s after its run:\n%s", loadFile(i), got)
		}
		if b, _ := os.ReadFile(filepath.Join(root, loadFile(i))); string(b) != loadText("F", i) {
			t.Errorf("%s changed on disk", loadFile(i))
		}
	}
	msgs := ed.Messages()
	if n := count(msgs, protocol.MethodWorkspaceApplyEdit); n != loadRuns {
		t.Errorf("%d proposals, want %d", n, loadRuns)
	}
	if n := failed.Load(); n > 0 || len(lat) == 0 {
		t.Errorf("%d of %d code actions failed", n, len(lat))
	}
	slices.Sort(lat)
	t.Logf("%d runs × %d chunks in %v; %d messages to the editor; %d code actions, p50 %v, p99 %v, max %v",
		loadRuns, chunks, elapsed.Round(time.Millisecond), len(msgs), len(lat),
		lat[len(lat)/2], lat[len(lat)*99/100], lat[len(lat)-1])
}

func loadFile(i int) string { return fmt.Sprintf("f%02d.go", i) }

func loadFunc(prefix string, i int) string { return fmt.Sprintf("func %s%02d()", prefix, i) }

func loadText(prefix string, i int) string {
	return "package p\n\n" + loadFunc(prefix, i) + " {}\n"
}

// liveHeap returns the bytes of reachable heap objects after collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }
