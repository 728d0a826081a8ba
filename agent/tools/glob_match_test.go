package tools

import (
	"strings"
	"testing"

	"github.com/bmatcuk/doublestar/v4"
)

// TestMatcher checks the glob's matcher against doublestar.Match on the
// whole path, for the shapes it matches without doublestar and for others.
func TestMatcher(t *testing.T) {
	t.Parallel()
	patterns := []string{
		"**", "**/*", "**/*.go", "**/*_test.go", "**/*.", "**/*go", "*.go", "*", "**/*.{go,md}", "**/x*.go", "**/*.g?",
		"src/**", "src/**/*", "src/**/*.ts", "src/*.ts", "src/a/**/*.go", "a\\*b/**/*.go", "**/*\\*",
	}
	paths := []string{"a.go", "a.go.md", ".go", "x.go", "d/a.go", "d/e/a_test.go", "d/ago", "go", "a.g", "a.gz", "README.md", ".env", "d/.hidden", "a*b/c.go", "x*"}
	for _, pattern := range patterns {
		base, _ := doublestar.SplitPattern(pattern)
		keep := matcher(pattern, base)
		for _, rel := range paths {
			whole := rel
			if base != "." {
				whole = base + "/" + rel
			}
			want, _ := doublestar.Match(pattern, whole)
			got := keep == nil || keep(rel)
			if got != want {
				t.Errorf("pattern %q, base %q, file %q: matcher %v, doublestar.Match %v", pattern, base, rel, got, want)
			}
		}
	}
}

// FuzzMatcher checks the matcher against doublestar.Match on any valid
// pattern and relative file path.
func FuzzMatcher(f *testing.F) {
	f.Add("**/*.go", "a/b.go")
	f.Add("src/**/*_test.go", "x_test.go")
	f.Add("a\\*b/**", "c")
	f.Fuzz(func(t *testing.T, pattern, rel string) {
		if !doublestar.ValidatePattern(pattern) || rel == "" || strings.HasPrefix(rel, "/") || strings.HasSuffix(rel, "/") || strings.Contains(rel, "//") {
			return
		}
		base, _ := doublestar.SplitPattern(pattern)
		whole := rel
		if base != "." {
			whole = base + "/" + rel
		}
		want, _ := doublestar.Match(pattern, whole)
		keep := matcher(pattern, base)
		if got := keep == nil || keep(rel); got != want {
			t.Errorf("pattern %q, base %q, file %q: matcher %v, doublestar.Match %v", pattern, base, rel, got, want)
		}
	})
}
