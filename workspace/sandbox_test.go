package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sandbox builds, under one temporary folder:
//
//	ws/        root 1: main.go, sub/x.go and symlinks in and out
//	ws2/       root 2: y.go (its name starts with "ws": a prefix trap)
//	ws-evil/   not a root, also a prefix trap
//	outside/   secret.txt
func sandbox(t *testing.T) (w *Workspace, ws, ws2, outside string) {
	t.Helper()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws, ws2, outside = filepath.Join(tmp, "ws"), filepath.Join(tmp, "ws2"), filepath.Join(tmp, "outside")
	writeFiles(t, tmp, map[string]string{
		"ws/main.go":         "package main\n",
		"ws/sub/x.go":        "package sub\n",
		"ws2/y.go":           "package y\n",
		"ws-evil/z.go":       "package z\n",
		"outside/secret.txt": "secret\n",
	})
	symlink(t, filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link-out"))
	symlink(t, outside, filepath.Join(ws, "dir-out"))
	symlink(t, filepath.Join(outside, "nothere"), filepath.Join(ws, "dangling-out"))
	symlink(t, "new.go", filepath.Join(ws, "dangling-in"))
	symlink(t, "main.go", filepath.Join(ws, "link-in"))
	symlink(t, filepath.Join(ws, "sub"), filepath.Join(ws, "dir-in"))
	symlink(t, filepath.Join(ws2, "y.go"), filepath.Join(ws, "link-root2"))
	symlink(t, "../../outside", filepath.Join(ws, "sub", "rel-out"))

	w, err = New(ws, ws2)
	if err != nil {
		t.Fatal(err)
	}
	return w, ws, ws2, outside
}

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Skipf("symlinks unavailable: %v", err)
	}
}

func TestResolve(t *testing.T) {
	t.Parallel()
	w, ws, ws2, outside := sandbox(t)
	tests := []struct {
		name    string
		base, p string
		want    string // when wantErr is nil
		wantErr error
	}{
		{name: "relative file", p: "main.go", want: ws + "/main.go"},
		{name: "relative nested", p: "sub/x.go", want: ws + "/sub/x.go"},
		{name: "empty is the first root", p: "", want: ws},
		{name: "dot is the first root", p: ".", want: ws},
		{name: "dot-dot that comes back in", p: "sub/../../ws/main.go", want: ws + "/main.go"},
		{name: "dot-dot traversal", p: "../outside/secret.txt", wantErr: ErrOutside},
		{name: "dot-dot after a name", p: "a/../../x", wantErr: ErrOutside},
		{name: "many dot-dots", p: "../../../../../../../../etc/passwd", wantErr: ErrOutside},
		{name: "absolute outside", p: "/etc/passwd", wantErr: ErrOutside},
		{name: "absolute volume root", p: "/", wantErr: ErrOutside},
		{name: "absolute inside", p: ws + "/sub/x.go", want: ws + "/sub/x.go"},
		{name: "absolute uncleaned inside", p: ws + "//sub/./x.go", want: ws + "/sub/x.go"},
		{name: "absolute sibling sharing the root's prefix", p: ws + "-evil/z.go", wantErr: ErrOutside},
		{name: "symlinked file pointing outside", p: "link-out", wantErr: ErrOutside},
		{name: "symlinked dir pointing outside", p: "dir-out/secret.txt", wantErr: ErrOutside},
		{name: "new file under a symlinked dir pointing outside", p: "dir-out/new/file.txt", wantErr: ErrOutside},
		{name: "relative symlink climbing out", p: "sub/rel-out/secret.txt", wantErr: ErrOutside},
		{name: "dangling symlink pointing outside", p: "dangling-out", wantErr: ErrOutside},
		{name: "dangling symlink is refused even inside", p: "dangling-in", wantErr: ErrOutside},
		{name: "symlinked file inside to inside", p: "link-in", want: ws + "/link-in"},
		{name: "symlinked dir inside to inside", p: "dir-in/x.go", want: ws + "/dir-in/x.go"},
		{name: "symlink into another root", p: "link-root2", want: ws + "/link-root2"},
		{name: "nonexistent nested path inside", p: "new/deep/file.go", want: ws + "/new/deep/file.go"},
		{name: "NUL byte", p: "main.go\x00.txt", wantErr: ErrInvalidPath},
		{name: "home directory", p: "~/.ssh/id_rsa", wantErr: ErrOutside},
		{name: "bare tilde", p: "~", wantErr: ErrOutside},
		{name: "URL-encoded dot-dot is a plain name", p: "%2e%2e/%2e%2e/etc/passwd", want: ws + "/%2e%2e/%2e%2e/etc/passwd"},
		{name: "file URI is a plain name", p: "file:///etc/passwd", want: ws + "/file:/etc/passwd"},
		{name: "second root, absolute", p: ws2 + "/y.go", want: ws2 + "/y.go"},
		{name: "second root by its name", p: "ws2/y.go", want: ws2 + "/y.go"},
		{name: "first root by its name", p: "ws/main.go", want: ws + "/main.go"},
		{name: "second root by name, then out", p: "ws2/../../outside/secret.txt", wantErr: ErrOutside},
		// Cleaned first, so this is "outside/secret.txt" in the first root.
		{name: "root name cancelled by dot-dot", p: "ws2/../outside/secret.txt", want: ws + "/outside/secret.txt"},
		{name: "relative to base", base: ws + "/sub", p: "x.go", want: ws + "/sub/x.go"},
		{name: "relative to base, up inside", base: ws + "/sub", p: "../main.go", want: ws + "/main.go"},
		{name: "relative to base, up and out", base: ws + "/sub", p: "../../outside", wantErr: ErrOutside},
		{name: "relative to base in second root", base: ws2, p: "y.go", want: ws2 + "/y.go"},
		{name: "relative base is taken from the first root", base: "sub", p: "x.go", want: ws + "/sub/x.go"},
		{name: "base outside", base: outside, p: "secret.txt", wantErr: ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := w.Resolve(tt.base, tt.p)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Resolve(%q, %q) = %q, %v; want error %v", tt.base, tt.p, got, err, tt.wantErr)
			}
			if err != nil {
				// The model reads this: it must name the path and the way in.
				msg := err.Error()
				if !strings.Contains(msg, strconv.Quote(tt.p)) {
					t.Errorf("error %q does not name %q", msg, tt.p)
				}
				if errors.Is(err, ErrOutside) && !strings.Contains(msg, ws+", "+ws2) {
					t.Errorf("error %q does not list the roots", msg)
				}
				return
			}
			if want := filepath.FromSlash(tt.want); got != want {
				t.Errorf("Resolve(%q, %q) = %q, want %q", tt.base, tt.p, got, want)
			}
		})
	}
}

func TestResolveHomeMessage(t *testing.T) {
	t.Parallel()
	w, _ := newWorkspace(t)
	_, err := w.Resolve("", "~/.ssh/id_rsa")
	if err == nil || !strings.Contains(err.Error(), "relative to the workspace") {
		t.Errorf("Resolve(~/.ssh/id_rsa) error = %v, want advice to use workspace-relative paths", err)
	}
}

func TestRel(t *testing.T) {
	t.Parallel()
	w, ws, ws2, outside := sandbox(t)
	one, err := New(ws)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		w    *Workspace
		path string
		want string
	}{
		{"one root, file", one, ws + "/main.go", "main.go"},
		{"one root, nested", one, ws + "/sub/x.go", "sub/x.go"},
		{"one root, the root", one, ws, "."},
		{"one root, outside", one, outside + "/secret.txt", outside + "/secret.txt"},
		{"one root, prefix sibling", one, ws2 + "/y.go", ws2 + "/y.go"},
		{"two roots, first", w, ws + "/sub/x.go", "ws/sub/x.go"},
		{"two roots, second", w, ws2 + "/y.go", "ws2/y.go"},
		{"two roots, a root", w, ws2, "ws2"},
		{"two roots, outside", w, outside, outside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := tt.w.Rel(filepath.FromSlash(tt.path))
			if want := filepath.FromSlash(tt.want); got != want {
				t.Errorf("Rel(%q) = %q, want %q", tt.path, got, want)
			}
			if got == tt.want && !filepath.IsAbs(got) {
				// Rel's output must lead Resolve back to the same file.
				back, err := tt.w.Resolve("", got)
				if err != nil || back != filepath.Clean(tt.path) {
					t.Errorf("Resolve(Rel(%q)) = %q, %v", tt.path, back, err)
				}
			}
		})
	}
}

// TestSymlinkedRoot opens a root through a symlink, as a client does with
// /tmp on macOS: the client's spelling and the evaluated one must meet.
func TestSymlinkedRoot(t *testing.T) {
	t.Parallel()
	tmp, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	real, alias := filepath.Join(tmp, "real"), filepath.Join(tmp, "alias")
	writeFiles(t, tmp, map[string]string{"real/a.go": "disk\n"})
	symlink(t, real, alias)

	w, err := New(alias)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{real}, w.Roots()); diff != "" {
		t.Errorf("Roots (-want +got):\n%s", diff)
	}
	w.Open(filepath.Join(alias, "a.go"), "buffer\n", 2)
	got, err := w.Resolve("", "a.go")
	if err != nil || got != filepath.Join(real, "a.go") {
		t.Fatalf("Resolve(a.go) = %q, %v", got, err)
	}
	if got, err := w.Resolve("", filepath.Join(alias, "a.go")); err != nil || got != filepath.Join(real, "a.go") {
		t.Errorf("Resolve(alias/a.go) = %q, %v", got, err)
	}
	f, err := w.ReadFile(got)
	if err != nil || f.Text != "buffer\n" || !f.Open {
		t.Errorf("ReadFile(%q) = %+v, %v; want the buffer opened through the alias", got, f, err)
	}
	if cp := w.ClientPath(got); cp != filepath.Join(alias, "a.go") {
		t.Errorf("ClientPath(%q) = %q, want the alias spelling", got, cp)
	}
	if r, ok := w.RootFor(filepath.Join(alias, "a.go")); !ok || r != real {
		t.Errorf("RootFor(alias/a.go) = %q, %v", r, ok)
	}
	if rel := w.Rel(filepath.Join(alias, "a.go")); rel != "a.go" {
		t.Errorf("Rel(alias/a.go) = %q", rel)
	}
}

// TestLinks follows chains of real symlinks: every hop is listed, the real
// path comes last, and a new file's real path is its nearest existing
// ancestor's.
func TestLinks(t *testing.T) {
	t.Parallel()
	w, ws, _, outside := sandbox(t)
	writeFiles(t, ws, map[string]string{".git/config": "[core]\n", ".env": "KEY=1\n"})
	symlink(t, ".git", filepath.Join(ws, "tools"))
	symlink(t, "hop2", filepath.Join(ws, "hop1"))
	symlink(t, "sub/../tools", filepath.Join(ws, "hop2"))
	symlink(t, "../.env", filepath.Join(ws, "sub", "setup.txt"))
	symlink(t, "loop-b", filepath.Join(ws, "loop-a"))
	symlink(t, "loop-a", filepath.Join(ws, "loop-b"))
	tests := []struct {
		p       string
		want    []string // relative to ws, or absolute
		wantErr string
	}{
		{p: "main.go", want: []string{"main.go"}},
		{p: "new/deep/file.go", want: []string{"new/deep/file.go"}},
		{p: "main.go/x", want: []string{"main.go/x"}},
		{p: "link-in", want: []string{"link-in", "main.go"}},
		{p: "tools/config", want: []string{"tools/config", ".git/config"}},
		{p: "tools/hooks/post-checkout", want: []string{"tools/hooks/post-checkout", ".git/hooks/post-checkout"}},
		{p: "hop1/config", want: []string{"hop1/config", "hop2/config", "sub/../tools/config", ".git/config"}},
		{p: "sub/setup.txt", want: []string{"sub/setup.txt", ".env"}},
		{p: "dir-in/x.go", want: []string{"dir-in/x.go", "sub/x.go"}},
		{p: "sub/rel-out/secret.txt", want: []string{"sub/rel-out/secret.txt", outside + "/secret.txt"}},
		{p: "dangling-in", wantErr: "cannot follow"},
		{p: "loop-a", wantErr: "too many levels of symbolic links"},
	}
	for _, tt := range tests {
		t.Run(tt.p, func(t *testing.T) {
			t.Parallel()
			got, err := w.Links(filepath.Join(ws, tt.p))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Links(%s) = %q, %v; want an error saying %q", tt.p, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for _, p := range tt.want {
				if !filepath.IsAbs(p) {
					p = filepath.Join(ws, p)
				}
				want = append(want, p)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Links(%s) (-want +got):\n%s", tt.p, diff)
			}
		})
	}
}
