//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// allowing is a PathPolicy that allows the paths it holds.
type allowing map[string]bool

func (a allowing) AllowsPath(tool, path string) bool { return a[path] }

// secret, the check the walkers call on each file they meet, judges a
// path by every path it leads through, and a policy rule for the file a
// link leads to allows it through the link too.
func TestSecretJudgesWhereAPathLeads(t *testing.T) {
	t.Parallel()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{".env": "KEY=1\n", "a.txt": "a\n", "docs/.keep": ""} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)
	}
	for link, target := range map[string]string{"docs/setup.txt": "../.env", "docs/ok.txt": "../a.txt", "docs/gone.txt": "nowhere"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		policy allowing
		path   string
		want   bool
	}{
		{nil, ".env", true},
		{nil, "docs/setup.txt", true},
		{nil, "docs/ok.txt", false},
		{nil, "a.txt", false},
		{nil, "docs/gone.txt", false}, // a dangling link: refused when opened, not a secret
		{allowing{".env": true}, "docs/setup.txt", false},
		{allowing{"docs/setup.txt": true}, "docs/setup.txt", true}, // the rule must name the file itself
	} {
		st := &state{env: Env{FS: ws.Folder(dir)}}
		if tt.policy != nil {
			st.env.Policy = tt.policy
		}
		if got := st.secret("grep_search", filepath.Join(dir, tt.path)); got != tt.want {
			t.Errorf("secret(%s) with %v = %v, want %v", tt.path, tt.policy, got, tt.want)
		}
	}
}
