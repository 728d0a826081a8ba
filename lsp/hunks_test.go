package lsp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits/lspedit"
)

func TestHunks(t *testing.T) {
	t.Parallel()
	edit := func(l1, l2 uint32) protocol.TextEdit {
		return protocol.TextEdit{Range: protocol.Range{Start: protocol.Position{Line: l1}, End: protocol.Position{Line: l2}}}
	}
	got := hunksOf([]protocol.TextEdit{edit(1, 1), edit(1, 2), edit(3, 3), edit(5, 5), edit(9, 12), edit(13, 13)})
	want := []contract.Hunk{{First: 0, Last: 2, Start: 1, End: 3}, {First: 3, Last: 3, Start: 5, End: 5}, {First: 4, Last: 5, Start: 9, End: 13}}
	if diff := cmp.Diff(want, got); diff != "" {
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
