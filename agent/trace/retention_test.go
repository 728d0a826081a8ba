package trace

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// records writes files under dir, relative path → (size, age), aged from now.
func records(t *testing.T, dir string, now time.Time, files map[string]struct {
	size int
	age  time.Duration
}) {
	t.Helper()
	for name, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.Repeat("x", f.size)), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
}

// left lists the files under dir, slash paths.
func left(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && p != dir {
			rel, _ := filepath.Rel(dir, p)
			if d.IsDir() {
				rel += "/"
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	slices.Sort(out)
	return out
}

func TestPrune(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	const day = 24 * time.Hour
	type rec = struct {
		size int
		age  time.Duration
	}
	files := map[string]rec{
		"w1/new.jsonl":     {100, 2 * time.Hour},
		"w1/mid.jsonl":     {100, 3 * day},
		"w1/old.jsonl":     {100, 40 * day},
		"w2/writing.jsonl": {500, 10 * time.Minute}, // a run still writing it
		"w2/small.jsonl":   {10, 5 * day},
		"w3/older.jsonl":   {100, 50 * day}, // w3/ is left empty
		"w1/notes.txt":     {1000, 90 * day},
		"retention.json":   {10, 90 * day},
	}
	tests := []struct {
		name   string
		r      Retention
		want   []string // removed
		pruned Pruned
	}{
		{"no limits", Retention{}, nil, Pruned{}},
		{"by age", Retention{MaxAge: 30 * day}, []string{"w1/old.jsonl", "w3/", "w3/older.jsonl"}, Pruned{2, 200}},
		// Newest first: writing (500, kept however big), new (600 > 550:
		// full), then everything older goes, the small one too.
		{"by size", Retention{MaxBytes: 550}, []string{"w1/mid.jsonl", "w1/new.jsonl", "w1/old.jsonl", "w2/small.jsonl", "w3/", "w3/older.jsonl"}, Pruned{5, 410}},
		{"by size, room for three", Retention{MaxBytes: 700}, []string{"w1/old.jsonl", "w2/small.jsonl", "w3/", "w3/older.jsonl"}, Pruned{3, 210}},
		{"both", DefaultRetention, []string{"w1/old.jsonl", "w3/", "w3/older.jsonl"}, Pruned{2, 200}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			records(t, dir, now, files)
			before := left(t, dir)
			pruned, err := PruneTraces(t.Context(), dir, tt.r, now)
			if err != nil {
				t.Fatal(err)
			}
			after := left(t, dir)
			var removed []string
			for _, f := range before {
				if !slices.Contains(after, f) {
					removed = append(removed, f)
				}
			}
			if diff := cmp.Diff(tt.want, removed); diff != "" {
				t.Errorf("removed (-want +got):\n%s", diff)
			}
			if pruned != tt.pruned {
				t.Errorf("pruned %+v, want %+v", pruned, tt.pruned)
			}
			again, err := PruneTraces(t.Context(), dir, tt.r, now)
			if err != nil || again != (Pruned{}) {
				t.Errorf("a second prune: %+v, %v", again, err)
			}
		})
	}
}

// TestPruneBounded checks one prune removes at most maxPrune files, the
// oldest, and that the next goes on.
func TestPruneBounded(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	dir := t.TempDir()
	type rec = struct {
		size int
		age  time.Duration
	}
	files := map[string]rec{}
	for i := range maxPrune + 3 {
		files[filepath.Join("w", strings.Repeat("r", 1+i%7)+string(rune('a'+i%26))+time.Duration(i).String()+".jsonl")] = rec{1, time.Duration(100+i) * 24 * time.Hour}
	}
	records(t, dir, now, files)
	p, err := PruneTraces(t.Context(), dir, Retention{MaxAge: 99 * 24 * time.Hour}, now)
	if err != nil || p.Files != maxPrune {
		t.Fatalf("first prune: %+v, %v", p, err)
	}
	// The three left are the youngest of the old.
	if got := len(left(t, dir)); got != 1+3 {
		t.Errorf("%d entries left, want w/ and 3 files", got)
	}
	for _, f := range left(t, dir)[1:] {
		fi, _ := os.Stat(filepath.Join(dir, f))
		if age := now.Sub(fi.ModTime()); age > 102*24*time.Hour {
			t.Errorf("%s (%v old) left, older ones pruned", f, age)
		}
	}
	if p, err := PruneTraces(t.Context(), dir, Retention{MaxAge: 99 * 24 * time.Hour}, now); err != nil || p.Files != 3 {
		t.Errorf("second prune: %+v, %v", p, err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	records(t, dir, now, map[string]rec{"w/x.jsonl": {1, 1000 * 24 * time.Hour}})
	if p, _ := PruneTraces(ctx, dir, Retention{MaxAge: time.Hour}, now); p.Files != 0 {
		t.Errorf("a cancelled prune removed %d files", p.Files)
	}
}

func TestRetentionOf(t *testing.T) {
	t.Parallel()
	r := RetentionOf(7, 0.5)
	if r != (Retention{MaxAge: 7 * 24 * time.Hour, MaxBytes: 512 << 10}) {
		t.Errorf("RetentionOf(7, 0.5) = %+v", r)
	}
	if got := RetentionOf(1e300, 0); got != (Retention{}) {
		t.Errorf("RetentionOf(1e300, 0) = %+v, want no limits", got)
	}
}
