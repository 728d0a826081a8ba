package edits

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Stat counts changed lines, as git diff --stat does.
type Stat struct{ Added, Deleted int }

// DiffStat returns how many lines turning old into new adds and deletes. A
// changed line counts once each way; so does a last line that gains or loses
// its final newline.
func DiffStat(old, new string) Stat {
	var s Stat
	if old == new {
		return s
	}
	for _, e := range udiff.Lines(old, new) {
		s.Deleted += countLines(old[e.Start:e.End])
		s.Added += countLines(e.New)
	}
	return s
}

// String returns e.g. "+3 −1", with U+2212 as the minus sign.
func (s Stat) String() string { return fmt.Sprintf("+%d \u2212%d", s.Added, s.Deleted) }

// Add returns the sum of two stats.
func (s Stat) Add(t Stat) Stat { return Stat{Added: s.Added + t.Added, Deleted: s.Deleted + t.Deleted} }

// countLines counts the lines of s, including a last line without "\n".
func countLines(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Unified returns a git-style unified diff of old and new with three lines of
// context, labelled "a/path" and "b/path"; path should be slash-separated and
// relative to the workspace root. An absolute path (a file outside the
// workspace, such as the user's AGENTS.md) is labelled as it is on both
// sides. An empty old text is shown as a new file ("--- /dev/null"). Equal
// texts give "".
func Unified(path, old, new string) string {
	if old == new {
		return ""
	}
	from, to := "a/"+path, "b/"+path
	if strings.HasPrefix(path, "/") {
		from, to = path, path
	}
	if old == "" {
		from = "/dev/null"
	}
	return udiff.Unified(from, to, old, new)
}
