package lspedit

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

func TestLineHunks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		old, new string
		want     []edits.Edit
	}{
		{
			name: "character edits in one line are one hunk",
			old:  "a\nHello, world\nb\n", new: "a\nBonjour, world\nb\n",
			want: []edits.Edit{{Start: 2, End: 14, New: "Bonjour, world"}},
		},
		{
			name: "lines apart are two hunks",
			old:  "func A() {}\n\nfunc B() {}\n\nfunc C() {}\n", new: "func Alpha() {}\n\nfunc B() {}\n\nfunc Gamma() {}\n",
			want: []edits.Edit{{Start: 0, End: 11, New: "func Alpha() {}"}, {Start: 26, End: 37, New: "func Gamma() {}"}},
		},
		{
			name: "adjacent lines join",
			old:  "x\na\nb\ny\n", new: "x\nA\nB\ny\n",
			want: []edits.Edit{{Start: 2, End: 5, New: "A\nB"}},
		},
		{
			name: "deleted lines",
			old:  "a\nb\nc\nd\n", new: "a\nd\n",
			want: []edits.Edit{{Start: 2, End: 7, New: "d"}},
		},
		{
			name: "appended without a final line break",
			old:  "a\nb", new: "a\nb\nc",
			want: []edits.Edit{{Start: 2, End: 3, New: "b\nc"}},
		},
		{
			name: "CRLF line ends stay out of the range",
			old:  "a\r\nb\r\nc\r\n", new: "a\r\nB\r\nc\r\n",
			want: []edits.Edit{{Start: 3, End: 4, New: "B"}},
		},
		{
			name: "UTF-8",
			old:  "é = 1\nß\n", new: "é = 2\nß\n",
			want: []edits.Edit{{Start: 0, End: 6, New: "é = 2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := lineHunks(tt.old, edits.Compute(tt.old, tt.new))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("lineHunks (-want +got):\n%s", diff)
			}
			checkLineHunks(t, tt.old, tt.new, got)
		})
	}
}

// TestLineHunksKeepHunks checks over many changes that the merged edits
// still make the new text, cover whole lines and group into the same hunks
// as the small edits: one edit per hunk.
func TestLineHunksKeepHunks(t *testing.T) {
	t.Parallel()
	base := strings.Split("package main\n\nimport \"fmt\"\n\nfunc A() {}\n\nfunc B() {\n\tfmt.Println(\"b\")\n}\n\nfunc C() {}\n", "\n")
	for i := range base {
		for j := i; j < len(base); j++ {
			lines := append([]string(nil), base...)
			lines[i] += " // i"
			lines[j] = strings.ToUpper(lines[j])
			if j+2 < len(lines) {
				lines = append(lines[:j+1], lines[j+2:]...) // and delete the line after j
			}
			old, new := strings.Join(base, "\n"), strings.Join(lines, "\n")
			checkLineHunks(t, old, new, lineHunks(old, edits.Compute(old, new)))
		}
	}
}

func checkLineHunks(t *testing.T, old, new string, got []edits.Edit) {
	t.Helper()
	if out, err := edits.Apply(old, got); err != nil || out != new {
		t.Fatalf("applying the hunks gives %q, %v; want %q", out, err, new)
	}
	for _, e := range got {
		if (e.Start > 0 && old[e.Start-1] != '\n' && old[e.Start-1] != '\r') || (e.End < len(old) && old[e.End] != '\n' && old[e.End] != '\r') {
			t.Errorf("%v does not cover whole lines of %q", e, old)
		}
	}
	small, err := TextEdits(old, edits.Compute(old, new), UTF16)
	if err != nil {
		t.Fatal(err)
	}
	merged, err := TextEdits(old, got, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	if n := hunkCount(small); n != len(merged) || hunkCount(merged) != n {
		t.Errorf("%d hunks of small edits, %d merged edits forming %d hunks (%q → %q)", n, len(merged), hunkCount(merged), old, new)
	}
}

// hunkCount counts hunks by docs/protocol.md's rule.
func hunkCount(tes []protocol.TextEdit) int {
	n, end := 0, uint32(0)
	for i, te := range tes {
		if i == 0 || te.Range.Start.Line > end+1 {
			n++
			end = te.Range.End.Line
			continue
		}
		end = max(end, te.Range.End.Line)
	}
	return n
}
