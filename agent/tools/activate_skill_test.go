package tools_test

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/tools"
)

// skillDisk is a workspace with a skill of its own and a user folder with
// another, found as the run builder finds them.
func skillDisk(t *testing.T) (*diskFS, []skill.Skill) {
	t.Helper()
	d := newDisk(t, map[string]string{
		"ws/.agentls/skills/release/SKILL.md": "---\nname: release\ndescription: Cut a release of this project.\n---\n1. Read notes.md.\n2. Tag.\n",
		"ws/.agentls/skills/release/notes.md": "Tags look like v1.2.3.\n",
		"user/skills/review/SKILL.md":         "---\nname: review\ndescription: Review a change the user's way.\n---\nRead checklist.md first.\n",
		"user/skills/review/checklist.md":     "- tests\n- docs\n",
		"user/skills/review/.env":             "TOKEN=x\n",
		"user/other.md":                       "not a skill's\n",
	})
	found, errs := skill.Find(append(skill.Places(d.root), skill.UserPlace(filepath.Join(d.dir, "user"))))
	if len(errs) > 0 || len(found) != 2 {
		t.Fatalf("skills %v, errors %v", found, errs)
	}
	return d, found
}

// A skill's body is loaded once per run, with its files listed by paths
// read_file takes; the files of a user's skill outside the workspace
// become readable once it is active, and nothing else there does.
func TestActivateSkill(t *testing.T) {
	t.Parallel()
	d, skills := skillDisk(t)
	user := filepath.Join(d.dir, "user")
	before := play(t, script{disk: d, env: func(e *tools.Env) { e.Skills = skills },
		calls: []*genai.FunctionCall{call("read_file", map[string]any{"file_path": filepath.Join(user, "skills/review/checklist.md")})}})
	if r := before.replies(t)[0].Response; r["error"] == nil || !strings.Contains(r["error"].(string), "outside") {
		t.Errorf("read_file of a skill's file before it is active: %v", r)
	}
	tr := play(t, script{disk: d, env: func(e *tools.Env) { e.Skills = skills },
		prelude: []*genai.FunctionCall{
			call("activate_skill", map[string]any{"name": "release"}),
			call("activate_skill", map[string]any{"name": "review"}),
		},
		calls: []*genai.FunctionCall{
			call("read_file", map[string]any{"file_path": filepath.Join(user, "skills/review/checklist.md")}),
			call("read_file", map[string]any{"file_path": ".agentls/skills/release/notes.md"}),
			call("activate_skill", map[string]any{"name": "release"}),
			call("read_file", map[string]any{"file_path": filepath.Join(user, "skills/review/.env")}),
			call("read_file", map[string]any{"file_path": filepath.Join(user, "other.md")}),
			call("activate_skill", map[string]any{"name": "deploy"}),
		}})
	reqs := tr.model.requests()
	first := reqs[1].Contents[len(reqs[1].Contents)-1].Parts
	rel := first[0].FunctionResponse.Response["output"]
	if want := "<activated_skill name=\"release\">\n<instructions>\n1. Read notes.md.\n2. Tag.\n</instructions>\n<files folder=\".agentls/skills/release\">\n.agentls/skills/release/notes.md\n</files>\n</activated_skill>\n"; rel == nil || !strings.HasPrefix(rel.(string), want) {
		t.Errorf("activate release:\n%v\nwant it to start with\n%s", rel, want)
	}
	rev, _ := first[1].FunctionResponse.Response["output"].(string)
	if !strings.Contains(rev, "Read checklist.md first.") || !strings.Contains(rev, "\n"+filepath.ToSlash(filepath.Join(user, "skills/review/checklist.md"))+"\n") || strings.Contains(rev, ".env") {
		t.Errorf("activate review:\n%s", rev)
	}
	got := tr.replies(t)
	want := []reply{
		{Name: "read_file", Response: output("- tests\n- docs\n")},
		{Name: "read_file", Response: output("Tags look like v1.2.3.\n")},
		{Name: "activate_skill", Response: output("The skill release is already active in this run: its instructions are earlier in this conversation. Go on following them.")},
		{Name: "read_file", Response: toolErr("cannot read " + filepath.Join(user, "skills/review/.env") + ": it looks like a file of secrets (keys, tokens, credentials), which tools may not use")},
	}
	if diff := cmp.Diff(want, got[:4]); diff != "" {
		t.Errorf("replies (-want +got):\n%s", diff)
	}
	if e, _ := got[4].Response["error"].(string); !strings.Contains(e, "outside") {
		t.Errorf("read_file of a file beside the skills: %v", got[4].Response)
	}
	if e, _ := got[5].Response["error"].(string); !strings.Contains(e, "deploy") || !strings.Contains(e, "release") {
		t.Errorf("an unknown skill: %v", got[5].Response)
	}
	var displays []string
	for _, ev := range tr.events {
		if ev.Type == agent.EventToolCall && ev.Call.Name == "activate_skill" || ev.Type == agent.EventToolResult && ev.Call.Name == "activate_skill" && !ev.Result.IsError {
			d := ev.Call.Display
			if ev.Result != nil {
				d = ev.Result.Display
			}
			displays = append(displays, d)
		}
	}
	wantDisplays := []string{"Skill release already active", "Using skill release (1 file)", "Using skill review (1 file)",
		"Using skill: deploy", "Using skill: release", "Using skill: release", "Using skill: review"}
	slices.Sort(displays) // results come as the calls finish
	if diff := cmp.Diff(wantDisplays, displays); diff != "" {
		t.Errorf("progress lines (-want +got):\n%s", diff)
	}
}
