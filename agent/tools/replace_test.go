package tools_test

import (
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestReplace(t *testing.T) {
	t.Parallel()
	const (
		bOld = "package b\n\nfunc f() int { return 1 }\n"
		bNew = "package b\n\nfunc f() int { return 2 }\n"
		aOld = "alpha\nbeta\nalpha\ngamma\nalpha\n"
	)
	oneToTwo := call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2"})
	bChange := agent.Change{Path: "/ws/b.go", Name: "b.go", Target: "/ws/b.go", Old: bOld, New: bNew, Tool: "replace"}
	bEdit := edit{Path: "/ws/b.go", Name: "b.go", Added: 1, Deleted: 1}
	runCases(t, []toolCase{{
		name: "single match applied",
		call: oneToTwo,
		want: output("The user accepted the change; b.go is updated (+1 \u22121)."),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeApplied, ""),
			succeeded("replace", "Changed b.go (+1 \u22121)"),
		},
		changes: []agent.Change{bChange},
	}, {
		name:    "applied with the user's modifications",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeApplied, Final: "package b\n\nfunc f() int { return 3 }\n"}}},
		call:    oneToTwo,
		want:    output("The user accepted the change to b.go with modifications; read the file again before changing it further."),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeApplied, ""),
			succeeded("replace", "Changed b.go (+1 \u22121)"),
		},
		changes: []agent.Change{bChange},
	}, {
		name: "all expected matches replaced",
		call: call("replace", map[string]any{"file_path": "a.txt", "old_string": "alpha", "new_string": "omega", "expected_replacements": 3}),
		want: output("The user accepted the change; a.txt is updated (+3 \u22123)."),
		steps: []step{
			called("replace", "Editing a.txt"),
			proposed("replace", edit{Path: "/ws/a.txt", Name: "a.txt", Added: 3, Deleted: 3}),
			decided("replace", edit{Path: "/ws/a.txt", Name: "a.txt", Added: 3, Deleted: 3}, agent.OutcomeApplied, ""),
			succeeded("replace", "Changed a.txt (+3 \u22123)"),
		},
		changes: []agent.Change{{Path: "/ws/a.txt", Name: "a.txt", Target: "/ws/a.txt", Old: aOld, New: "omega\nbeta\nomega\ngamma\nomega\n", Tool: "replace"}},
	}, {
		name:  "no match",
		call:  call("replace", map[string]any{"file_path": "b.go", "old_string": "return 7", "new_string": "return 2"}),
		want:  toolErr("old_string was not found in b.go. Read the file again and copy the text exactly, including white space."),
		steps: []step{called("replace", "Editing b.go"), failed("replace", "")},
	}, {
		name:  "more matches than expected",
		call:  call("replace", map[string]any{"file_path": "a.txt", "old_string": "alpha", "new_string": "omega"}),
		want:  toolErr("old_string matches 3 times in a.txt (lines 1, 3, 5) but expected_replacements is 1. Add surrounding context to match one place, or set expected_replacements to 3."),
		steps: []step{called("replace", "Editing a.txt"), failed("replace", "")},
	}, {
		name:  "more matches than the expected 2",
		call:  call("replace", map[string]any{"file_path": "a.txt", "old_string": "alpha", "new_string": "omega", "expected_replacements": 2}),
		want:  toolErr("old_string matches 3 times in a.txt (lines 1, 3, 5) but expected_replacements is 2. Add surrounding context to match one place, or set expected_replacements to 3."),
		steps: []step{called("replace", "Editing a.txt"), failed("replace", "")},
	}, {
		name:  "fewer matches than expected",
		call:  call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 2", "expected_replacements": 2}),
		want:  toolErr("old_string matches only 1 of the 2 expected places in b.go (lines 3). Read the file again, or set expected_replacements to 1."),
		steps: []step{called("replace", "Editing b.go"), failed("replace", "")},
	}, {
		name: "multi-line old_string",
		call: call("replace", map[string]any{"file_path": "a.txt", "old_string": "beta\nalpha\n", "new_string": "beta\n"}),
		want: output("The user accepted the change; a.txt is updated (+0 \u22121)."),
		steps: []step{
			called("replace", "Editing a.txt"),
			proposed("replace", edit{Path: "/ws/a.txt", Name: "a.txt", Deleted: 1}),
			decided("replace", edit{Path: "/ws/a.txt", Name: "a.txt", Deleted: 1}, agent.OutcomeApplied, ""),
			succeeded("replace", "Changed a.txt (+0 \u22121)"),
		},
		changes: []agent.Change{{Path: "/ws/a.txt", Name: "a.txt", Target: "/ws/a.txt", Old: aOld, New: "alpha\nbeta\ngamma\nalpha\n", Tool: "replace"}},
	}, {
		name:  "empty old_string",
		call:  call("replace", map[string]any{"file_path": "b.go", "old_string": "", "new_string": "x"}),
		want:  toolErr("old_string is empty; give the exact text to replace"),
		steps: []step{called("replace", "Editing b.go"), failed("replace", "")},
	}, {
		name:  "old_string equals new_string",
		call:  call("replace", map[string]any{"file_path": "b.go", "old_string": "return 1", "new_string": "return 1"}),
		want:  toolErr("old_string and new_string are the same; nothing to change"),
		steps: []step{called("replace", "Editing b.go"), failed("replace", "")},
	}, {
		name:    "rejected with a reason",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeRejected, Message: "use a constant"}}},
		call:    oneToTwo,
		want:    toolErr("The user rejected the change to b.go; the file is unchanged. Reason: use a constant. Do not propose the same change again."),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeRejected, "use a constant"),
			failed("replace", "Rejected change to b.go"),
		},
		changes: []agent.Change{bChange},
	}, {
		name:    "rejected without a reason",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeRejected}}},
		call:    oneToTwo,
		want:    toolErr("The user rejected the change to b.go; the file is unchanged. Do not propose the same change again."),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeRejected, ""),
			failed("replace", "Rejected change to b.go"),
		},
		changes: []agent.Change{bChange},
	}, {
		name:    "conflict",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeConflict}}},
		call:    oneToTwo,
		want:    toolErr("conflict: b.go changed since you read it; read it again."),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeConflict, ""),
			failed("replace", "Conflict on b.go"),
		},
		changes: []agent.Change{bChange},
	}, {
		name:    "failed",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeFailed, Message: "the client refused the edit"}}},
		call:    oneToTwo,
		want:    toolErr("The editor could not apply the change to b.go: the client refused the edit"),
		steps: []step{
			called("replace", "Editing b.go"),
			proposed("replace", bEdit),
			decided("replace", bEdit, agent.OutcomeFailed, "the client refused the edit"),
			failed("replace", "Failed to change b.go"),
		},
		changes: []agent.Change{bChange},
	}, {
		name:  "missing file",
		call:  call("replace", map[string]any{"file_path": "nope.go", "old_string": "a", "new_string": "b"}),
		want:  toolErr("nope.go does not exist; use write_file to create it"),
		steps: []step{called("replace", "Editing nope.go"), failed("replace", "")},
	}, {
		name:  "outside the workspace",
		call:  call("replace", map[string]any{"file_path": "/etc/hosts", "old_string": "a", "new_string": "b"}),
		want:  toolErr("/etc/hosts is outside the workspace"),
		steps: []step{called("replace", "Editing /etc/hosts"), failed("replace", "")},
	}})
}

func TestReplaceHelps(t *testing.T) {
	t.Parallel()
	const goFile = "package a\n\nfunc f(x int) int {\n\tif x > 0 {\n\t\treturn x * 2\n\t}\n\treturn 0\n}\n"
	files := map[string]string{"/ws/a.go": goFile, "/ws/crlf.txt": "one\r\ntwo\r\nthree\r\n", "/ws/.env": "A=1\n", "/ws/.git/config": "[core]\n"}
	crlfEdit := edit{Path: "/ws/crlf.txt", Name: "crlf.txt", Added: 2, Deleted: 2}
	runCases(t, []toolCase{{
		name:  "other indentation",
		files: files,
		call:  call("replace", map[string]any{"file_path": "a.go", "old_string": "    if x > 0 {\n        return x * 2", "new_string": "x"}),
		want: toolErr("old_string was not found in a.go. The text is there with other white space (indentation, tabs or line ends) at lines 4-5:\n" +
			"     4\t\tif x > 0 {\n     5\t\t\treturn x * 2\nRead the file again and copy the text exactly, including white space."),
		steps: []step{called("replace", "Editing a.go"), failed("replace", "")},
	}, {
		name:  "nearly the same text",
		files: files,
		call:  call("replace", map[string]any{"file_path": "a.go", "old_string": "\tif x >= 0 {\n\t\treturn x * 3\n", "new_string": "x"}),
		want: toolErr("old_string was not found in a.go. The most similar text is at lines 4-5:\n" +
			"     4\t\tif x > 0 {\n     5\t\t\treturn x * 2\nRead the file again and copy the text exactly, including white space."),
		steps: []step{called("replace", "Editing a.go"), failed("replace", "")},
	}, {
		name:  "Windows line ends",
		files: files,
		call:  call("replace", map[string]any{"file_path": "crlf.txt", "old_string": "one\ntwo\n", "new_string": "1\n2\n"}),
		want:  output("The user accepted the change; crlf.txt is updated (+2 \u22122)."),
		steps: []step{
			called("replace", "Editing crlf.txt"),
			proposed("replace", crlfEdit),
			decided("replace", crlfEdit, agent.OutcomeApplied, ""),
			succeeded("replace", "Changed crlf.txt (+2 \u22122)"),
		},
		changes: []agent.Change{{Path: "/ws/crlf.txt", Name: "crlf.txt", Target: "/ws/crlf.txt", Old: "one\r\ntwo\r\nthree\r\n", New: "1\r\n2\r\nthree\r\n", Tool: "replace"}},
	}, {
		name:  "placeholder for left-out code",
		files: files,
		call:  call("replace", map[string]any{"file_path": "a.go", "old_string": "\tif x > 0 {\n\t\treturn x * 2\n\t}\n", "new_string": "\t// ... existing code ...\n"}),
		want:  toolErr("new_string has \"// ... existing code ...\" where code should be: it looks like a stand-in for code left out, and the change would delete that code. Give the complete new text."),
		steps: []step{called("replace", "Editing a.go"), failed("replace", "")},
	}, {
		name:  "secret file",
		files: files,
		call:  call("replace", map[string]any{"file_path": ".env", "old_string": "A=1", "new_string": "A=2"}),
		want: toolErr(".env looks like a file of secrets (keys, tokens, credentials), which tools may not use; " +
			"a policy rule with a pathPattern can allow it. Do not try to reach it another way"),
		steps: []step{called("replace", "Editing .env"), failed("replace", "")},
	}, {
		name:  "inside .git",
		files: files,
		call:  call("replace", map[string]any{"file_path": ".git/config", "old_string": "[core]", "new_string": "[core]\n\thooksPath = /tmp"}),
		want:  toolErr(".git/config is inside .git/, which agentls never changes; leave it to the user"),
		steps: []step{called("replace", "Editing .git/config"), failed("replace", "")},
	}})
}
