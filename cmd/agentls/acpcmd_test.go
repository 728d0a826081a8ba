package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The settings of agentls acp: the user's settings.json (comments and
// all), then --settings, then $AGENTLS_SETTINGS; each problem names where
// it is.
func TestACPSettings(t *testing.T) {
	t.Parallel()
	cfg := t.TempDir()
	write(t, filepath.Join(cfg, "agentls", "settings.json"), "{\n  // mine\n  \"model\": \"gemini-pro-latest\", \"maxTurns\": 7\n}\n")
	extra := filepath.Join(t.TempDir(), "acp.json")
	write(t, extra, `{"maxTurns": 9, "colour": "red"}`)
	e := env{"XDG_CONFIG_HOME=" + cfg, envSettings + `={"approvalMode": "autoEdit", "maxTurns": -1}`}
	s, problems := acpSettings(e, extra)
	if s.Model != "gemini-pro-latest" || s.MaxTurns != 9 || s.ApprovalMode != "autoEdit" {
		t.Errorf("settings: model %q, maxTurns %d, approvalMode %q", s.Model, s.MaxTurns, s.ApprovalMode)
	}
	want := []string{
		extra + `: unknown setting "colour"`,
		"$" + envSettings + ": maxTurns: must be positive, not -1",
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if _, problems := acpSettings(env{}, filepath.Join(cfg, "none.json")); len(problems) != 1 || !strings.Contains(problems[0], "no such file") {
		t.Errorf("a missing --settings file: %v", problems)
	}
}

// agentls acp speaks ACP on stdin and stdout, and ends when the client
// closes stdin.
func TestACPCommand(t *testing.T) {
	t.Parallel()
	code, out, errOut := agentls(t, map[string]string{"HOME": t.TempDir()}, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n", "acp")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var resp struct {
		ID     int `json:"id"`
		Result struct {
			ProtocolVersion int `json:"protocolVersion"`
			AgentInfo       struct {
				Name string `json:"name"`
			} `json:"agentInfo"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(out), &resp); err != nil || resp.ID != 1 || resp.Result.ProtocolVersion != 1 || resp.Result.AgentInfo.Name != "agentls" {
		t.Errorf("stdout %q (%v)", out, err)
	}
	if code, _, _ := agentls(t, nil, "", "acp", "extra"); code != exitUsage {
		t.Errorf("agentls acp extra: exit %d, want %d", code, exitUsage)
	}
}
