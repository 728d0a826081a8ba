package tools_test

import (
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestWriteFile(t *testing.T) {
	t.Parallel()
	const bOld = "package b\n\nfunc f() int { return 1 }\n"
	newEdit := edit{Path: "/ws/new.go", Name: "new.go", Added: 2, Create: true}
	runCases(t, []toolCase{{
		name: "create",
		call: call("write_file", map[string]any{"file_path": "new.go", "content": "package x\n\nvar v = 1\n"}),
		want: output("The user accepted the change; new.go is updated (+3 \u22120)."),
		steps: []step{
			called("write_file", "Writing new.go"),
			proposed("write_file", edit{Path: "/ws/new.go", Name: "new.go", Added: 3, Create: true}),
			decided("write_file", edit{Path: "/ws/new.go", Name: "new.go", Added: 3, Create: true}, agent.OutcomeApplied, ""),
			succeeded("write_file", "Changed new.go (+3 \u22120)"),
		},
		changes: []agent.Change{{Path: "/ws/new.go", Name: "new.go", Old: "", New: "package x\n\nvar v = 1\n", Create: true, Tool: "write_file"}},
	}, {
		name: "create in a new folder",
		call: call("write_file", map[string]any{"file_path": "pkg/sub/new.go", "content": "package sub\n"}),
		want: output("The user accepted the change; pkg/sub/new.go is updated (+1 \u22120)."),
		steps: []step{
			called("write_file", "Writing pkg/sub/new.go"),
			proposed("write_file", edit{Path: "/ws/pkg/sub/new.go", Name: "pkg/sub/new.go", Added: 1, Create: true}),
			decided("write_file", edit{Path: "/ws/pkg/sub/new.go", Name: "pkg/sub/new.go", Added: 1, Create: true}, agent.OutcomeApplied, ""),
			succeeded("write_file", "Changed pkg/sub/new.go (+1 \u22120)"),
		},
		changes: []agent.Change{{Path: "/ws/pkg/sub/new.go", Name: "pkg/sub/new.go", New: "package sub\n", Create: true, Tool: "write_file"}},
	}, {
		name: "overwrite",
		call: call("write_file", map[string]any{"file_path": "b.go", "content": "package b\n\nfunc f() int { return 2 }\n"}),
		want: output("The user accepted the change; b.go is updated (+1 \u22121)."),
		steps: []step{
			called("write_file", "Writing b.go"),
			proposed("write_file", edit{Path: "/ws/b.go", Name: "b.go", Added: 1, Deleted: 1}),
			decided("write_file", edit{Path: "/ws/b.go", Name: "b.go", Added: 1, Deleted: 1}, agent.OutcomeApplied, ""),
			succeeded("write_file", "Changed b.go (+1 \u22121)"),
		},
		changes: []agent.Change{{Path: "/ws/b.go", Name: "b.go", Old: bOld, New: "package b\n\nfunc f() int { return 2 }\n", Tool: "write_file"}},
	}, {
		name: "overwrite with empty content",
		call: call("write_file", map[string]any{"file_path": "b.go", "content": ""}),
		want: output("The user accepted the change; b.go is updated (+0 \u22123)."),
		steps: []step{
			called("write_file", "Writing b.go"),
			proposed("write_file", edit{Path: "/ws/b.go", Name: "b.go", Deleted: 3}),
			decided("write_file", edit{Path: "/ws/b.go", Name: "b.go", Deleted: 3}, agent.OutcomeApplied, ""),
			succeeded("write_file", "Changed b.go (+0 \u22123)"),
		},
		changes: []agent.Change{{Path: "/ws/b.go", Name: "b.go", Old: bOld, New: "", Tool: "write_file"}},
	}, {
		name:  "identical content",
		call:  call("write_file", map[string]any{"file_path": "b.go", "content": bOld}),
		want:  toolErr("b.go already has this content; nothing to change"),
		steps: []step{called("write_file", "Writing b.go"), failed("write_file", "")},
	}, {
		name:    "create rejected",
		answers: []answer{{decision: agent.Decision{Outcome: agent.OutcomeRejected, Message: "Not there!"}}},
		call:    call("write_file", map[string]any{"file_path": "new.go", "content": "package x\nvar v = 1\n"}),
		want:    toolErr("The user rejected the change to new.go; the file is unchanged. Reason: Not there! Do not propose the same change again."),
		steps: []step{
			called("write_file", "Writing new.go"),
			proposed("write_file", newEdit),
			decided("write_file", newEdit, agent.OutcomeRejected, "Not there!"),
			failed("write_file", "Rejected change to new.go"),
		},
		changes: []agent.Change{{Path: "/ws/new.go", Name: "new.go", New: "package x\nvar v = 1\n", Create: true, Tool: "write_file"}},
	}, {
		name:  "outside the workspace",
		call:  call("write_file", map[string]any{"file_path": "../evil.sh", "content": "rm -rf /\n"}),
		want:  toolErr("/evil.sh is outside the workspace"),
		steps: []step{called("write_file", "Writing ../evil.sh"), failed("write_file", "")},
	}, {
		name:  "a folder",
		call:  call("write_file", map[string]any{"file_path": ".", "content": "x\n"}),
		want:  toolErr("cannot read .: read .: invalid argument"),
		steps: []step{called("write_file", "Writing ."), failed("write_file", "")},
	}})
}
