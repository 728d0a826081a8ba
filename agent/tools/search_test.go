package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

// runTool calls one built-in tool directly, as the harness would, and
// returns its output; an error fails the test.
func runTool(t *testing.T, fsys agent.FS, name string, args map[string]any) string {
	t.Helper()
	res := runToolResult(t, fsys, name, args)
	if res.IsError {
		t.Fatalf("%s %v: %s", name, args, res.Output)
	}
	return res.Output
}

func runToolResult(t *testing.T, fsys agent.FS, name string, args map[string]any) agent.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Builtin(tools.Env{FS: fsys}) {
		if tool.Declaration().Name != name {
			continue
		}
		res, err := tool.Run(t.Context(), &agent.Call{Name: name, Args: raw})
		if err != nil {
			t.Fatalf("%s %s: %v", name, raw, err)
		}
		return res
	}
	t.Fatalf("no tool %s", name)
	return agent.Result{}
}

// byPath orders slash paths element by element, the order searches
// promise: a folder's entries by name, a subfolder's files where its name
// sorts.
func byPath(a, b string) int {
	return slices.Compare(strings.Split(a, "/"), strings.Split(b, "/"))
}

// A bigTree is a generated workspace larger than any cap of the search
// tools.
type bigTree struct {
	d      *diskFS
	goList []string // every .go file, slash paths relative to the root
	hits   []string // the files holding the needle, by path
	mod    map[string]time.Time
}

const needle = "needle_7d1f"

// newBigTree writes 21,000 files in 525 folders (some nested, some names
// that sort across folder boundaries, "a" before "a-b" before "a/"): every
// fourth is a .go file, and 311 of them hold the needle.
func newBigTree(t *testing.T) *bigTree {
	t.Helper()
	d := newDisk(t, nil)
	bt := &bigTree{d: d, mod: map[string]time.Time{}}
	rng := rand.New(rand.NewPCG(20, 26))
	var all []string
	for i := range 525 {
		dir := fmt.Sprintf("p%02d/d%03d", i%37, i)
		if i%5 == 0 {
			dir = fmt.Sprintf("p%02d/d%03d/deep/er", i%37, i)
		}
		for j := range 40 {
			name := fmt.Sprintf("f%02d.txt", j)
			if j%4 == 0 {
				name = fmt.Sprintf("f%02d.go", j)
			}
			if j == 1 {
				name = "a-b.go" // sorts after the folder "a" would, but before "a/"
			}
			all = append(all, dir+"/"+name)
		}
	}
	hitSet := map[int]bool{}
	for len(hitSet) < 311 {
		hitSet[rng.IntN(len(all))] = true
	}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, rel := range all {
		p := filepath.Join(d.root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		text := fmt.Sprintf("file %d\n", i)
		if hitSet[i] {
			text += "the " + needle + " is here\n"
			bt.hits = append(bt.hits, rel)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(rel, ".go") {
			bt.goList = append(bt.goList, rel)
			// Files written one after the other share a time by sevens, so
			// that ties are broken by path.
			bt.touch(t, rel, base.Add(time.Duration(i/7)*time.Second))
		}
	}
	// A few files, anywhere in the tree, are the newest: the glob must find
	// them first whatever folder they are in.
	for k, i := range rng.Perm(len(all))[:120] {
		if strings.HasSuffix(all[i], ".go") {
			bt.touch(t, all[i], base.Add(1000*time.Hour-time.Duration(k)*time.Minute))
		}
	}
	slices.SortFunc(bt.hits, byPath)
	slices.SortFunc(bt.goList, byPath)
	return bt
}

func (bt *bigTree) touch(t *testing.T, rel string, at time.Time) {
	t.Helper()
	if err := os.Chtimes(filepath.Join(bt.d.root, filepath.FromSlash(rel)), at, at); err != nil {
		t.Fatal(err)
	}
	bt.mod[rel] = at
}

// newestFirst is files, newest first and by path where times tie.
func (bt *bigTree) newestFirst(files []string) []string {
	files = slices.Clone(files)
	slices.SortFunc(files, func(a, b string) int {
		if c := bt.mod[b].Compare(bt.mod[a]); c != 0 {
			return c
		}
		return byPath(a, b)
	})
	return files
}

// TestSearchBigTree checks the search tools on a tree larger than their
// caps: counts are exact, the same call gives the same answer, what is shown
// is the head of the complete answer in the documented order.
func TestSearchBigTree(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("writes 21,000 files")
	}
	bt := newBigTree(t)

	t.Run("grep", func(t *testing.T) {
		t.Parallel()
		args := map[string]any{"pattern": needle}
		out := runTool(t, bt.d, "grep_search", args)
		if again := runTool(t, bt.d, "grep_search", args); again != out {
			t.Errorf("a second search differs:\n%s", cmp.Diff(out, again))
		}
		var want strings.Builder
		fmt.Fprintf(&want, "311 matches for /%s/ in 311 files in the workspace root; showing the first 200 by path, at most 20 a file:\n", needle)
		for _, rel := range bt.hits[:200] {
			fmt.Fprintf(&want, "%s:2: the %s is here\n", rel, needle)
		}
		want.WriteString("[111 matches not shown; narrow the pattern, dir_path or include to see them.]\n")
		if diff := cmp.Diff(want.String(), out); diff != "" {
			t.Errorf("grep_search (-want +got):\n%s", diff)
		}
	})
	t.Run("grep with include", func(t *testing.T) {
		t.Parallel()
		var goHits []string
		for _, h := range bt.hits {
			if strings.HasSuffix(h, ".go") {
				goHits = append(goHits, h)
			}
		}
		out := runTool(t, bt.d, "grep_search", map[string]any{"pattern": needle, "include": "*.go"})
		head := fmt.Sprintf("%s for /%s/ in %d files in the workspace root (files matching *.go)", plural(len(goHits), "match"), needle, len(goHits))
		if !strings.HasPrefix(out, head) {
			t.Errorf("want %q, got:\n%s", head, firstLine(out))
		}
	})
	t.Run("glob", func(t *testing.T) {
		t.Parallel()
		args := map[string]any{"pattern": "**/*.go"}
		out := runTool(t, bt.d, "glob", args)
		if again := runTool(t, bt.d, "glob", args); again != out {
			t.Errorf("a second glob differs:\n%s", cmp.Diff(out, again))
		}
		lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		wantHead := fmt.Sprintf("%d files match \"**/*.go\" in the workspace root; showing the 100 newest:", len(bt.goList))
		if lines[0] != wantHead {
			t.Errorf("head: want %q, got %q", wantHead, lines[0])
		}
		want := bt.newestFirst(bt.goList)[:100]
		if diff := cmp.Diff(want, lines[1:101]); diff != "" {
			t.Errorf("newest first (-want +got):\n%s", diff)
		}
		if got, want := lines[len(lines)-1], fmt.Sprintf("[%d older files not shown; narrow the pattern or dir_path to see them.]", len(bt.goList)-100); got != want {
			t.Errorf("tail: want %q, got %q", want, got)
		}
	})
	t.Run("glob, fewer than the cap", func(t *testing.T) {
		t.Parallel()
		out := runTool(t, bt.d, "glob", map[string]any{"pattern": "p00/d0[0-4]*/**/*.go"})
		var files []string
		for _, rel := range bt.goList {
			if strings.HasPrefix(rel, "p00/d000/") || strings.HasPrefix(rel, "p00/d037/") {
				files = append(files, rel)
			}
		}
		want := fmt.Sprintf("%d files match \"p00/d0[0-4]*/**/*.go\" in the workspace root, newest first:\n%s\n", len(files), strings.Join(bt.newestFirst(files), "\n"))
		if diff := cmp.Diff(want, out); diff != "" {
			t.Errorf("glob (-want +got):\n%s", diff)
		}
	})
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ses", n, what)
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// cancelFS cancels a context at its n-th ReadDir, as a run cancelled while
// a walk reads folders.
type cancelFS struct {
	*memFS
	n      atomic.Int32
	cancel context.CancelFunc
}

func (c *cancelFS) ReadDir(p string) ([]fs.DirEntry, error) {
	if c.n.Add(-1) == 0 {
		c.cancel()
	}
	return c.memFS.ReadDir(p)
}

// TestSearchCancelled checks that a walk ends, with the context's error,
// when the run is cancelled before or while it reads folders.
func TestSearchCancelled(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 40 {
		files[fmt.Sprintf("/ws/d%02d/e%d/f.go", i, i%3)] = "package f // needle\n"
	}
	for _, after := range []int32{1, 2, 5, 30} {
		for _, tool := range []string{"glob", "grep_search"} {
			ctx, cancel := context.WithCancel(t.Context())
			fsys := &cancelFS{memFS: newMemFS(files), cancel: cancel}
			fsys.n.Store(after)
			var args json.RawMessage = []byte(`{"pattern": "**/*.go"}`)
			if tool == "grep_search" {
				args = []byte(`{"pattern": "needle"}`)
			}
			for _, tl := range tools.Builtin(tools.Env{FS: fsys}) {
				if tl.Declaration().Name == tool {
					if _, err := tl.Run(ctx, &agent.Call{Name: tool, Args: args}); !errors.Is(err, context.Canceled) {
						t.Errorf("%s cancelled at ReadDir %d: %v, want context.Canceled", tool, after, err)
					}
				}
			}
			cancel()
		}
	}
}
