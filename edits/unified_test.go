package edits

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestUnified(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new, want string
	}{
		{"equal", "a\n", "a\n", ""},
		{
			"new file", "", "a\nb\n",
			"--- /dev/null\n+++ b/dir/f.go\n@@ -0,0 +1,2 @@\n+a\n+b\n",
		},
		{
			"delete everything", "a\nb\n", "",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		},
		{
			"delete a line", "a\nb\nc\n", "a\nc\n",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,3 +1,2 @@\n a\n-b\n c\n",
		},
		{
			"no trailing newline", "a\nb", "a\nc",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
		},
		{
			"newline added at end", "a\nb", "a\nb\n",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			"crlf", "a\r\nb\r\n", "a\r\nc\r\n",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n",
		},
		{
			"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "1\nx\n3\n4\n5\n6\n7\n8\n9\n10\ny\n12\n",
			"--- a/dir/f.go\n+++ b/dir/f.go\n@@ -1,5 +1,5 @@\n 1\n-2\n+x\n 3\n 4\n 5\n@@ -8,5 +8,5 @@\n 8\n 9\n 10\n-11\n+y\n 12\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, Unified("dir/f.go", tt.old, tt.new)); diff != "" {
				t.Errorf("Unified mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestDiffStat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, old, new string
		want           Stat
		text           string
	}{
		{"equal", "a\n", "a\n", Stat{}, "+0 −0"},
		{"new file", "", "a\nb\nc", Stat{Added: 3}, "+3 −0"},
		{"delete everything", "a\nb\n", "", Stat{Deleted: 2}, "+0 −2"},
		{"change one line", "a\nb\nc\n", "a\nB\nc\n", Stat{Added: 1, Deleted: 1}, "+1 −1"},
		{"insert lines", "a\nc\n", "a\nb1\nb2\nc\n", Stat{Added: 2}, "+2 −0"},
		{"final newline", "a", "a\n", Stat{Added: 1, Deleted: 1}, "+1 −1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := DiffStat(tt.old, tt.new)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("DiffStat mismatch (-want +got):\n%s", diff)
			}
			if got.String() != tt.text {
				t.Errorf("Stat.String() = %q, want %q", got.String(), tt.text)
			}
		})
	}
}

func TestUnifiedAbsolutePath(t *testing.T) {
	t.Parallel()
	got := Unified("/home/u/.config/agentls/AGENTS.md", "a\n", "a\nb\n")
	if !strings.HasPrefix(got, "--- /home/u/.config/agentls/AGENTS.md\n+++ /home/u/.config/agentls/AGENTS.md\n") {
		t.Errorf("Unified with an absolute path:\n%s", got)
	}
}
