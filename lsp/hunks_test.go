package lsp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits/lspedit"
)

func TestHunks(t *testing.T) {
	t.Parallel()
	edit := func(l1, l2 uint32) protocol.TextEdit {
		return protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: l1}, End: protocol.Position{Line: l2}}}
	}
	got := hunksOf([]protocol.TextEdit{edit(1, 1), edit(1, 2), edit(3, 3), edit(5, 5), edit(9, 12), edit(13, 13)})
	want := []hunk{{first: 0, last: 2, start: 1, end: 3}, {first: 3, last: 3, start: 5, end: 5}, {first: 4, last: 5, start: 9, end: 13}}
	if diff := cmp.Diff(want, got, cmp.AllowUnexported(hunk{})); diff != "" {
		t.Errorf("hunks (-want +got):\n%s", diff)
	}
	if got := describeHunks(want, []int{0, 2}); got != "hunk 1 of 3 (lines 2-4), hunk 3 of 3 (lines 10-14)" {
		t.Errorf("describeHunks = %q", got)
	}
}

func TestPartialMessage(t *testing.T) {
	t.Parallel()
	old := "func A() {}\n\nfunc B() {}\n"
	proposed := "func Alpha() {}\n\nfunc Beta() {}\n"
	final := "func Alpha() {}\n\nfunc B() {}\n"
	msg := partialMessage("x.go", old, proposed, final, lspedit.UTF16, []int{1}, nil)
	for _, want := range []string{"Rejected: hunk 2 of 2 (line 3)", "-func A() {}", "+func Alpha() {}", "Read the file again"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "Beta") {
		t.Errorf("message shows the rejected hunk as applied:\n%s", msg)
	}
}
