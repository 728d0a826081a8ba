package contract

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A Gemini CLI mcpServers block reads as it is; later sources replace a
// server by name and keep the others.
func TestMCPServersMerge(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	p1 := s.Merge(json.RawMessage(`{"mcpServers": {
		"fs": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "."], "env": {"TOKEN": "$GH_TOKEN"}, "cwd": "sub", "timeout": 5000, "trust": true, "includeTools": ["read_file"], "excludeTools": ["write_file"]},
		"web": {"httpUrl": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`))
	p2 := s.Merge(json.RawMessage(`{"agentls": {"mcpServers": {"web": {"url": "http://127.0.0.1:9/sse"}, "up": {"url": "http://127.0.0.1:9/mcp", "type": "http"}}}}`))
	if len(p1)+len(p2) > 0 {
		t.Fatalf("problems: %q %q", p1, p2)
	}
	want := map[string]MCPServer{
		"fs": {Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "."}, Env: map[string]string{"TOKEN": "$GH_TOKEN"},
			Cwd: "sub", Timeout: 5000, Trust: true, IncludeTools: []string{"read_file"}, ExcludeTools: []string{"write_file"}, Scope: ScopeUser},
		"web": {URL: "http://127.0.0.1:9/sse", Scope: ScopeUser},
		"up":  {URL: "http://127.0.0.1:9/mcp", Type: "http", Scope: ScopeUser},
	}
	if diff := cmp.Diff(want, s.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
	for name, tr := range map[string]string{"fs": TransportStdio, "web": TransportSSE, "up": TransportHTTP} {
		if got := s.MCPServers[name].Transport(); got != tr {
			t.Errorf("%s: transport %s, want %s", name, got, tr)
		}
	}
}

// A server whose definition is wrong is left out and named; the others
// stay, and so does the one of the same name from before.
func TestMCPServersBad(t *testing.T) {
	t.Parallel()
	tests := []struct{ server, problem string }{
		{`{}`, `needs one of command, url or httpUrl`},
		{`{"command": "a", "url": "http://h/"}`, `has more than one of command, url and httpUrl; give one`},
		{`{"command": "a", "headers": {"x": "y"}}`, `headers go with url or httpUrl, not command`},
		{`{"httpUrl": "http://h/", "args": ["x"]}`, `args, env and cwd go with command, not url or httpUrl`},
		{`{"url": "http://h/", "type": "ws"}`, `type "ws" is not one of sse, http`},
		{`{"httpUrl": "http://h/", "type": "http"}`, `type goes with url`},
		{`{"url": "file:///etc/passwd"}`, `"file:///etc/passwd" is not an http or https URL`},
		{`{"command": "a", "timeout": -1}`, `timeout must not be negative, not -1`},
		{`{"command": "a", "env": {"A=B": "c"}}`, `env: "A=B" is not a variable name`},
		{`{"command": "a", "oauth": {}}`, `unknown field "oauth"`},
		{`{"command": 7}`, `wrong type ({"command": 7})`},
	}
	for _, tt := range tests {
		s := DefaultSettings()
		s.MCPServers["x"] = MCPServer{Command: "before", Scope: ScopeUser}
		problems := s.Merge(json.RawMessage(`{"mcpServers": {"x": ` + tt.server + `, "ok": {"command": "b"}}}`))
		if diff := cmp.Diff([]string{"mcpServers: x: " + tt.problem}, problems); diff != "" {
			t.Errorf("%s: problems (-want +got):\n%s", tt.server, diff)
		}
		if s.MCPServers["x"].Command != "before" || s.MCPServers["ok"].Command != "b" {
			t.Errorf("%s: servers %+v", tt.server, s.MCPServers)
		}
	}
}

// A workspace's settings file sets servers of its own scope, never trusted,
// never in place of the user's, and nothing else.
func TestMergeWorkspace(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	s.Merge(json.RawMessage(`{"mcpServers": {"fs": {"command": "mine"}}}`))
	problems := s.MergeWorkspace(json.RawMessage(`{"model": "x", "approvalMode": "autoEdit",
		"mcpServers": {"fs": {"command": "theirs"}, "db": {"command": "db-server", "trust": true}}}`))
	want := []string{
		`approvalMode: a workspace's settings file may set only mcpServers`,
		`model: a workspace's settings file may set only mcpServers`,
		`mcpServers: db: trust is ignored in a workspace's settings file`,
		`mcpServers: fs: your own settings define this server; the workspace's is left out`,
	}
	if diff := cmp.Diff(want, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
	if s.Model != DefaultModel || s.ApprovalMode != "default" {
		t.Errorf("a workspace file changed %+v", s)
	}
	wantServers := map[string]MCPServer{
		"fs": {Command: "mine", Scope: ScopeUser},
		"db": {Command: "db-server", Scope: ScopeWorkspace},
	}
	if diff := cmp.Diff(wantServers, s.MCPServers); diff != "" {
		t.Errorf("servers (-want +got):\n%s", diff)
	}
}

func TestReadSettingsFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// Comments go; strings that look like them stay.
	p := write("c.json", "{\n  // the model\n  \"model\": \"a//b\", /* a \"quoted\" \n comment */ \"maxTurns\": 3 /* end */\n}\n")
	raw, err := ReadSettingsFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s, problems := ParseSettings(raw)
	if len(problems) > 0 || s.Model != "a//b" || s.MaxTurns != 3 {
		t.Errorf("read %s: %+v %q", raw, s, problems)
	}
	if raw, err := ReadSettingsFile(filepath.Join(dir, "none.json")); raw != nil || err != nil {
		t.Errorf("a missing file: %s, %v", raw, err)
	}
	if _, err := ReadSettingsFile(write("bad.json", `{"model": }`)); err == nil {
		t.Error("a file that is not JSON reads")
	}
	if _, err := ReadSettingsFile(dir); err == nil {
		t.Error("a folder reads as settings")
	}
	if _, err := ReadSettingsFile(write("big.json", `{"model": "`+string(make([]byte, maxSettingsFile))+`"}`)); err == nil {
		t.Error("a file over 1 MiB reads")
	}
}
