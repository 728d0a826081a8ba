package lsp_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/workspace"
)

// exit arrives while a run that ended with a text answer waits for the
// client to answer window/showDocument. The exit handler holds the
// connection's reader while it waits for the run, so that answer can never
// be read: the run must stop waiting for it at once, not when the request
// times out (an hour here).
func TestExitWhileShowingAnAnswer(t *testing.T) {
	t.Parallel()
	gem := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It says hi."})))
	codes := make(chan int, 1)
	w := newWire(t, lsp.Config{
		NewModel: func(ctx context.Context, model string) (agent.Model, error) {
			return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model, Getenv: func(string) string { return "" }})
		},
		UserConfigDir: t.TempDir(), CacheDir: t.TempDir(),
		ShowDocumentTimeout: time.Hour,
		Exit:                func(code int) { codes <- code },
	})
	root := t.TempDir()
	m := w.call("initialize", `{"processId":null,"rootUri":"`+string(workspace.URIFromPath(root))+`",`+
		`"capabilities":{"window":{"showDocument":{"support":true}}}}`)
	if m.Error != nil {
		t.Fatalf("initialize: %s", m.raw)
	}
	w.notify("initialized", `{}`)
	if m := w.call("workspace/executeCommand", `{"command":"agentls.run","arguments":[{"prompt":"what does it say?","action":"explain"}]}`); m.Error != nil {
		t.Fatalf("agentls.run: %s", m.raw)
	}
	show := w.waitFor("window/showDocument", func(m wireMsg) bool { return m.Method == "window/showDocument" })
	if !strings.Contains(string(show.Params), "answers") {
		t.Errorf("showDocument of %s", show.Params)
	}
	w.send(frame(`{"jsonrpc":"2.0","method":"exit"}`))
	select {
	case code := <-codes:
		if code != 1 {
			t.Errorf("exit code = %d, want 1 (no shutdown)", code)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("exit waited for the run, and the run for an answer the exit handler keeps from being read")
	}
	w.waitFor("$/cancelRequest of the showDocument request", func(m wireMsg) bool {
		return m.Method == "$/cancelRequest" && strings.Contains(string(m.Params), string(show.ID))
	})
}
