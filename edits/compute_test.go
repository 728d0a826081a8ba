package edits

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkEdits fails t unless es is a valid Compute result for old: in order,
// within bounds, and with both ends of every edit on a boundary LSP can name.
func checkEdits(t testing.TB, old string, es []Edit) {
	t.Helper()
	if _, err := check(old, es); err != nil {
		t.Fatalf("edits %v for %q: %v", es, old, err)
	}
	for _, e := range es {
		if !IsBoundary(old, e.Start) || !IsBoundary(old, e.End) {
			t.Fatalf("edit %v splits a rune or a \"\\r\\n\" of %q", e, old)
		}
	}
}

func TestCompute(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new string
		want           []Edit
	}{
		{"equal", "abc", "abc", nil},
		{"empty old", "", "hello\n", []Edit{{0, 0, "hello\n"}}},
		{"delete everything", "a\nb\n", "", []Edit{{0, 4, ""}}},
		{"one word", "the quick fox\n", "the slow fox\n", []Edit{{4, 9, "slow"}}},
		{"append line", "a\n", "a\nb\n", []Edit{{2, 2, "b\n"}}},
		{"accented rune", "héllo", "hello", []Edit{{1, 3, "e"}}},
		{"emoji", "a😀b", "a😁b", []Edit{{1, 5, "😁"}}},
		// Removing the "\r" of "\r\n" would end an edit between "\r" and "\n".
		{"crlf to lf", "a\r\nb", "a\nb", []Edit{{1, 3, "\n"}}},
		{"lf to crlf", "a\nb", "a\r\nb", []Edit{{1, 1, "\r"}}},
		{"crlf line change", "x\r\ny\r\n", "x\r\nz\r\n", []Edit{{3, 4, "z"}}},
		{"crlf insert before newline", "ab\r\n", "abc\r\n", []Edit{{2, 2, "c"}}},
		{"invalid utf-8 kept", "x\xffy", "x\xffz", []Edit{{2, 3, "z"}}},
		{"invalid utf-8 removed", "x\xffy", "xy", []Edit{{1, 2, ""}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Compute(tt.old, tt.new)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Compute(%q, %q) mismatch (-want +got):\n%s", tt.old, tt.new, diff)
			}
		})
	}
}

func TestComputeApplyRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, old, new string }{
		{"equal", "same\n", "same\n"},
		{"both empty", "", ""},
		{"new file", "", "package main\n\nfunc main() {}\n"},
		{"delete everything", "package main\n", ""},
		{"no trailing newline", "a\nb", "a\nb\n"},
		{"multibyte", "é日本😀x\n", "e日本語😀y\n"},
		{"astral plane", "𐐀𝄞𠀋\n", "𝄞𐐀\n𠀋"},
		{"crlf everywhere", "a\r\nb\r\nc\r\n", "a\r\nB\r\n\r\nc\r\nd"},
		{"mixed line endings", "a\rb\nc\r\n", "a\r\nb\rc\n"},
		{"lone cr", "x\ry", "x\r\ry"},
		{"invalid utf-8", "a\xe6\x97b\xff", "a\xe6\x97\xa5b"},
		{"split sequence", "\xe6\x97\xa5", "\xe6\x97\xa6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			es := Compute(tt.old, tt.new)
			checkEdits(t, tt.old, es)
			got, err := Apply(tt.old, es)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if got != tt.new {
				t.Errorf("Apply(old, Compute(old, new)) = %q, want %q (edits %v)", got, tt.new, es)
			}
		})
	}
}

// udiff bounds its search and, past the bound, replaces the middle of the
// text in one edit. Compute must still find each small change.
func TestComputeScatteredChanges(t *testing.T) {
	t.Parallel()
	old, new := scattered(10000, 100)
	es := Compute(old, new)
	checkEdits(t, old, es)
	if got, err := Apply(old, es); err != nil || got != new {
		t.Fatalf("Apply(old, Compute(old, new)) does not give new (error %v)", err)
	}
	if len(es) != 100 {
		t.Fatalf("Compute found %d edits, want 100", len(es))
	}
	for _, e := range es {
		if e.End-e.Start > len("quick") || len(e.New) > len("slow") {
			t.Fatalf("edit %v is larger than the change", e)
		}
	}
}

// scattered returns a text of n lines and a copy with changes lines changed,
// spread evenly.
func scattered(n, changes int) (old, new string) {
	lines := make([]string, n)
	for i := range lines {
		lines[i] = fmt.Sprintf("line %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	old = strings.Join(lines, "")
	for k := range changes {
		i := k*(n/changes) + n/changes/2
		lines[i] = strings.Replace(lines[i], "quick", "slow", 1)
	}
	return old, strings.Join(lines, "")
}

func TestApply(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		text  string
		edits []Edit
		want  string
		err   error
	}{
		{"no edits", "abc", nil, "abc", nil},
		{"replace", "abc", []Edit{{1, 2, "X"}}, "aXc", nil},
		{"adjacent", "abc", []Edit{{0, 1, "A"}, {1, 2, "B"}}, "ABc", nil},
		{"insertions keep order", "ab", []Edit{{1, 1, "x"}, {1, 1, "y"}}, "axyb", nil},
		{"insert then replace", "ab", []Edit{{1, 1, "x"}, {1, 2, "Y"}}, "axY", nil},
		{"at end", "ab", []Edit{{2, 2, "c"}}, "abc", nil},
		{"replace then insert", "ab", []Edit{{0, 2, "X"}, {1, 1, "y"}}, "", ErrEdit},
		{"unsorted", "abc", []Edit{{2, 3, ""}, {0, 1, ""}}, "", ErrEdit},
		{"overlap", "abc", []Edit{{0, 2, ""}, {1, 3, ""}}, "", ErrEdit},
		{"past end", "abc", []Edit{{2, 4, ""}}, "", ErrEdit},
		{"negative", "abc", []Edit{{-1, 0, ""}}, "", ErrEdit},
		{"start after end", "abc", []Edit{{2, 1, ""}}, "", ErrEdit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Apply(tt.text, tt.edits)
			if !errors.Is(err, tt.err) {
				t.Fatalf("Apply error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("Apply = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestNormalize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		old   string
		edits []Edit
		want  []Edit
	}{
		{"aligned", "ab", []Edit{{1, 2, "x"}}, []Edit{{1, 2, "x"}}},
		{"end inside crlf", "a\r\nb", []Edit{{1, 2, ""}}, []Edit{{1, 3, "\n"}}},
		{"start inside crlf", "a\r\nb", []Edit{{2, 3, ""}}, []Edit{{1, 3, "\r"}}},
		{"insert inside crlf", "a\r\nb", []Edit{{2, 2, "x"}}, []Edit{{1, 3, "\rx\n"}}},
		{"two edits meet inside crlf", "a\r\nb", []Edit{{1, 2, "R"}, {2, 3, "N"}}, []Edit{{1, 3, "RN"}}},
		{"two edits inside one rune", "😀", []Edit{{1, 2, "x"}, {3, 3, "y"}}, []Edit{{0, 4, "\xf0x\x98y\x80"}}},
		{"start inside rune", "aé", []Edit{{2, 3, "e"}}, []Edit{{1, 3, "\xc3e"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Normalize(tt.old, tt.edits)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Normalize mismatch (-want +got):\n%s", diff)
			}
			before, _ := Apply(tt.old, tt.edits)
			after, _ := Apply(tt.old, got)
			if before != after {
				t.Errorf("Normalize changed the result: %q, want %q", after, before)
			}
		})
	}
}
