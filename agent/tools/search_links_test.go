//go:build unix

package tools_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSearchLinks walks a workspace full of symbolic links: none that leads
// out is followed, none to a folder is walked, and a link to a secret is
// judged by the secret, whatever its own name.
func TestSearchLinks(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{
		"ws/.env":              "API_KEY=hunter2\n",
		"ws/main.go":           "package main // hunter2\n",
		"ws/sub/real.txt":      "hunter2 inside\n",
		"outside/secret.txt":   "hunter2 outside\n",
		"outside/deep/app.txt": "hunter2 deep\n",
		"ws/.kube/config":      "token: hunter2\n",
	})
	d.symlink(t, "../.env", "ws/sub/setup.txt")                               // an innocent name for a secret
	d.symlink(t, "real.txt", "ws/sub/alias.txt")                              // a file inside: searched under its own name
	d.symlink(t, filepath.Join(d.dir, "outside"), "ws/lnk")                   // a folder outside
	d.symlink(t, filepath.Join(d.dir, "outside", "secret.txt"), "ws/out.txt") // a file outside
	d.symlink(t, "sub", "ws/loop")                                            // a folder inside: not walked twice
	d.symlink(t, "nowhere", "ws/broken.txt")
	d.symlink(t, ".kube", "ws/k") // a folder inside, named innocently: its files are judged where they are

	t.Run("grep", func(t *testing.T) {
		t.Parallel()
		out := runTool(t, d, "grep_search", map[string]any{"pattern": "hunter2"})
		want := "3 matches for /hunter2/ in 3 files in the workspace root:\n" +
			"main.go:1: package main // hunter2\n" +
			"sub/alias.txt:1: hunter2 inside\n" +
			"sub/real.txt:1: hunter2 inside\n" +
			"(skipped 3 secret-looking files)\n" +
			"(5 symbolic links to folders, out of the workspace or nowhere were not followed)\n"
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("grep_search (-want +got):\n%s", diff)
		}
	})
	t.Run("grep in a folder reached through a link", func(t *testing.T) {
		t.Parallel()
		out := runTool(t, d, "grep_search", map[string]any{"pattern": "hunter2", "dir_path": "k"})
		if want := "No matches for /hunter2/ in k.\n(skipped 1 secret-looking files)\n"; out != want {
			t.Errorf("grep_search in k: got\n%s\nwant\n%s", out, want)
		}
	})
	t.Run("glob", func(t *testing.T) {
		t.Parallel()
		out := runTool(t, d, "glob", map[string]any{"pattern": "**/*.txt"})
		for _, name := range []string{"secret.txt", "app.txt", "out.txt", "broken.txt", "loop/"} {
			if strings.Contains(out, name) {
				t.Errorf("glob lists %s:\n%s", name, out)
			}
		}
	})
	for _, pattern := range []string{"lnk/**", "lnk/*.txt", "lnk/deep/*"} {
		t.Run("glob through a link out: "+pattern, func(t *testing.T) {
			t.Parallel()
			res := runToolResult(t, d, "glob", map[string]any{"pattern": pattern})
			if !res.IsError || !strings.Contains(res.Output, "outside the workspace") || strings.Contains(res.Output, ".txt\n") {
				t.Errorf("glob %s: %+v", pattern, res)
			}
		})
	}
	t.Run("glob through a link inside", func(t *testing.T) {
		t.Parallel()
		out := runTool(t, d, "glob", map[string]any{"pattern": "loop/real.txt"})
		if !strings.HasPrefix(out, "1 file matches") || !strings.Contains(out, "loop/real.txt\n") {
			t.Errorf("glob loop/real.txt:\n%s", out)
		}
	})
}
