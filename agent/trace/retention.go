package trace

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// A Retention says which records of runs a folder keeps: the newest, as
// long as they are younger than MaxAge and fit in MaxBytes together. A zero
// field sets no limit of its kind.
type Retention struct {
	MaxAge   time.Duration
	MaxBytes int64
}

// DefaultRetention keeps 30 days of runs, 100 MB at most (some 500 runs of
// 30 turns).
var DefaultRetention = Retention{MaxAge: 30 * 24 * time.Hour, MaxBytes: 100 << 20}

const (
	// pruneGrace protects the files changed lately: their runs may still be
	// writing them.
	pruneGrace = time.Hour
	// maxPrune bounds the files one Prune removes, so that a large backlog
	// costs a few prunes rather than one long one.
	maxPrune = 2000
)

// Pruned is what a Prune removed.
type Pruned struct {
	Files int
	Bytes int64
}

// Prune removes the files of dir that match pattern (filepath.Glob syntax,
// relative to dir) and that r does not keep, oldest first: every file older
// than MaxAge, then the oldest until the rest fit in MaxBytes. Files changed
// within the last hour stay, and one call removes at most 2,000; folders its
// removals leave empty go too. It stops between two files when ctx ends.
// Traces are "*/*.jsonl" of the trace folder (see PruneTraces); another
// store of records, such as sessions, passes its own folder and pattern.
func Prune(ctx context.Context, dir, pattern string, r Retention, now time.Time) (Pruned, error) {
	paths, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return Pruned{}, err
	}
	type file struct {
		path string
		size int64
		mod  time.Time
	}
	files := make([]file, 0, len(paths))
	for _, p := range paths {
		fi, err := os.Lstat(p)
		if err != nil || !fi.Mode().IsRegular() {
			continue // gone since, or not a record
		}
		files = append(files, file{p, fi.Size(), fi.ModTime()})
	}
	// Newest first; the same time by path, so that two prunes agree.
	slices.SortFunc(files, func(a, b file) int {
		return cmp.Or(b.mod.Compare(a.mod), cmp.Compare(a.path, b.path))
	})
	var (
		doomed []file
		total  int64
		full   bool // the newer files fill MaxBytes: older ones go
	)
	for _, f := range files {
		total += f.size
		full = full || r.MaxBytes > 0 && total > r.MaxBytes
		recent := now.Sub(f.mod) < pruneGrace
		old := r.MaxAge > 0 && now.Sub(f.mod) > r.MaxAge
		if !recent && (old || full) {
			doomed = append(doomed, f)
		}
	}
	// The oldest go first, so that a prune cut short removed the right ones.
	slices.Reverse(doomed)
	var (
		pruned Pruned
		errs   []error
		dirs   = map[string]bool{}
	)
	for _, f := range doomed[:min(len(doomed), maxPrune)] {
		if ctx.Err() != nil {
			break
		}
		if err := os.Remove(f.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		pruned.Files++
		pruned.Bytes += f.size
		dirs[filepath.Dir(f.path)] = true
	}
	for d := range dirs {
		if d != filepath.Clean(dir) {
			os.Remove(d) // fails, as it should, unless empty
		}
	}
	return pruned, errors.Join(errs...)
}

// PruneTraces prunes the traces of every workspace in the trace folder dir.
func PruneTraces(ctx context.Context, dir string, r Retention, now time.Time) (Pruned, error) {
	return Prune(ctx, dir, filepath.Join("*", "*.jsonl"), r, now)
}

// RetentionOf is the Retention of the settings traceMaxAgeDays and
// traceMaxSizeMB; values past what a Retention holds set no limit.
func RetentionOf(maxAgeDays, maxSizeMB float64) Retention {
	var r Retention
	if age := maxAgeDays * 24 * float64(time.Hour); age > 0 && age < math.MaxInt64 {
		r.MaxAge = time.Duration(age)
	}
	if size := maxSizeMB * (1 << 20); size > 0 && size < math.MaxInt64 {
		r.MaxBytes = int64(size)
	}
	return r
}
