package workspace_test

import (
	"path/filepath"
	"testing"

	"github.com/agentls/agentls/workspace"
)

func TestFolderRelRoundTrips(t *testing.T) {
	t.Parallel()
	a, b := t.TempDir(), t.TempDir()
	ws, err := workspace.New(a, b)
	if err != nil {
		t.Fatal(err)
	}
	roots := ws.Roots()
	f := ws.Folder(roots[1])
	tests := []struct{ path, want string }{
		{roots[1], "."},
		{filepath.Join(roots[1], "sub", "x.go"), filepath.Join("sub", "x.go")},
		{filepath.Join(roots[0], "y.go"), filepath.Join(roots[0], "y.go")}, // another folder: absolute
	}
	for _, tt := range tests {
		got := f.Rel(tt.path)
		if got != tt.want {
			t.Errorf("Rel(%s) = %s, want %s", tt.path, got, tt.want)
		}
		if back, err := f.Resolve(got); err != nil || back != tt.path {
			t.Errorf("Resolve(Rel(%s)) = %s, %v", tt.path, back, err)
		}
	}
}
