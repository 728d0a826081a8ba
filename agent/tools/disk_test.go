package tools_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/workspace"
)

// diskFS is an agent.FS over a workspace on disk, the workspace.Folder lsp
// and cmd/agentls serve: the tests of the sandbox and of shell commands need
// real files, links and processes.
type diskFS struct {
	*workspace.Folder
	ws   *workspace.Workspace
	root string // the workspace folder, symlinks evaluated
	dir  string // the temporary folder holding it, and what is outside
}

// newDisk makes a temporary folder holding the workspace folder "ws" and
// writes files into it, keyed by paths relative to the temporary folder
// ("ws/a.go", "outside/secret.txt"). Only ws is a workspace folder.
func newDisk(t *testing.T, files map[string]string) *diskFS {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(dir, "ws")
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	return &diskFS{Folder: ws.Folder(root), ws: ws, root: root, dir: dir}
}

// write applies a change to disk, as an editor saving it would.
func (d *diskFS) write(p, content string) {
	os.MkdirAll(filepath.Dir(p), 0o755)
	os.WriteFile(p, []byte(content), 0o644)
}

// symlink makes a link at name (relative to the temporary folder).
func (d *diskFS) symlink(t *testing.T, target, name string) {
	t.Helper()
	if err := os.Symlink(target, filepath.Join(d.dir, filepath.FromSlash(name))); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

// fakeApprover answers approvals with answer (nil: allow) and records them.
type fakeApprover struct {
	answer func(agent.Approval) (bool, error)

	mu  sync.Mutex
	got []agent.Approval
}

func (a *fakeApprover) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	a.mu.Lock()
	a.got = append(a.got, ap)
	a.mu.Unlock()
	if a.answer == nil {
		return true, nil
	}
	return a.answer(ap)
}

func (a *fakeApprover) asked() []agent.Approval {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.got)
}

// approveAll lets a run's shell commands run without a policy.
func approveAll(cfg *agent.Config) { cfg.Approver = &fakeApprover{} }
