package lsp_test

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// didChangeConfiguration pulls the settings again; a new problem is shown,
// one already shown is not repeated. A client without
// workspace/configuration pushes them instead.
func TestDidChangeConfiguration(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t)
	s.ed.Configuration = json.RawMessage(`{"maxTurns": 0}`)
	s.ed.Initialize(ctx, s.root, nil, nil)
	s.ed.WaitFor("the first warning", isWarning("maxTurns: must be positive"))

	s.ed.Configuration = json.RawMessage(`{"maxTurns": 0, "colour": "blue"}`)
	if err := s.ed.Server.DidChangeConfiguration(ctx, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny("null")}); err != nil {
		t.Fatal(err)
	}
	m := s.ed.WaitFor("the second warning", isWarning(`unknown setting \"colour\"`))
	if strings.Contains(string(m.Params), "maxTurns") {
		t.Errorf("the maxTurns problem was shown again: %s", m.Params)
	}
	if n := count(s.ed.Messages(), protocol.MethodWorkspaceConfiguration); n != 2 {
		t.Errorf("%d configuration requests, want 2", n)
	}

	push := newSession(t)
	caps := lsptest.FullCapabilities()
	caps.Workspace.Configuration = nil
	push.ed.Initialize(ctx, push.root, caps, nil)
	push.ed.Server.DidChangeConfiguration(ctx, &protocol.DidChangeConfigurationParams{Settings: protocol.LSPAny(`{"agentls": {"confirm": "always"}}`)})
	push.ed.WaitFor("the pushed settings' warning", isWarning(`configuration: confirm: \"always\" is not one of each, run`))
}

func isWarning(text string) func(lsptest.Message) bool {
	return func(m lsptest.Message) bool {
		return m.Method == protocol.MethodWindowShowMessage && strings.Contains(string(m.Params), text)
	}
}
