package skill_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/skill"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func skillMD(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\nlicense: MIT\n---\n" + body
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, src, err string
	}{
		{"ok", skillMD("go-release", "Cut a Go release.", "1. Tag it.\n"), ""},
		{"crlf and folded description", "---\r\nname: x\r\ndescription: >\r\n  Two\r\n  lines.\r\n---\r\nBody\r\n", ""},
		{"no front matter", "# Just markdown\n", "no front matter"},
		{"unclosed", "---\nname: x\ndescription: y\n", "no closing line"},
		{"broken YAML", "---\nname: [x\ndescription: y\n---\nbody\n", "front matter: yaml"},
		{"upper case name", skillMD("Go-Release", "d", "b"), `name "Go-Release" must be`},
		{"double hyphen", skillMD("go--release", "d", "b"), "must be 1 to 64"},
		{"long name", skillMD(strings.Repeat("a", 65), "d", "b"), "must be 1 to 64"},
		{"no description", skillMD("x", "", "b"), "description is required"},
		{"long description", skillMD("x", strings.Repeat("d", 1025), "b"), "longer than 1024"},
		{"escape in description", skillMD("x", "\"a\\x1b[31mred\"", "b"), "control characters"},
		{"empty body", skillMD("x", "d", "\n  \n"), "instructions after the front matter are empty"},
	} {
		fm, body, err := skill.Parse([]byte(tc.src))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: err = %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && (fm.Name == "" || fm.Description == "" || body == ""):
			t.Errorf("%s: %+v %q", tc.name, fm, body)
		}
	}
}

// Skills are found in every place, the first of a name wins, and bad ones
// are reported with their file: broken front matter, a name that is not
// the folder's, a clash, links out of the place.
func TestFind(t *testing.T) {
	t.Parallel()
	ws, user, outside := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".agentls/skills/release/SKILL.md"), skillMD("release", "Cut a release.", "Tag it.\n"))
	write(t, filepath.Join(ws, ".agentls/skills/release/scripts/tag.sh"), "git tag\n")
	write(t, filepath.Join(ws, ".agentls/skills/release/.secret"), "x")
	write(t, filepath.Join(ws, ".gemini/skills/review/SKILL.md"), skillMD("review", "Review a change.", "Read the diff.\n"))
	write(t, filepath.Join(ws, ".agents/skills/release/SKILL.md"), skillMD("release", "Another release.", "Other.\n"))
	write(t, filepath.Join(ws, ".agents/skills/broken/SKILL.md"), "---\nname: broken\ndescription: [\n---\nx\n")
	write(t, filepath.Join(ws, ".agents/skills/misnamed/SKILL.md"), skillMD("other-name", "d", "b\n"))
	write(t, filepath.Join(ws, ".agents/skills/notes/README.md"), "not a skill\n")
	write(t, filepath.Join(outside, "evil/SKILL.md"), skillMD("evil", "Leads out.", "b\n"))
	write(t, filepath.Join(outside, "stolen.md"), skillMD("linked", "Its SKILL.md leads out.", "b\n"))
	os.Symlink(filepath.Join(outside, "evil"), filepath.Join(ws, ".agents/skills/evil"))
	os.MkdirAll(filepath.Join(ws, ".agents/skills/linked"), 0o755)
	os.Symlink(filepath.Join(outside, "stolen.md"), filepath.Join(ws, ".agents/skills/linked/SKILL.md"))
	os.Symlink(filepath.Join(outside, "stolen.md"), filepath.Join(ws, ".agentls/skills/release/scripts/stolen.md"))
	write(t, filepath.Join(user, "skills/review/SKILL.md"), skillMD("review", "The user's review.", "Mine.\n"))
	write(t, filepath.Join(user, "skills/notes/SKILL.md"), skillMD("notes", "Take notes.", "Write.\n"))

	found, errs := skill.Find(append(skill.Places(ws), skill.UserPlace(user)))
	var got []string
	for _, s := range found {
		got = append(got, s.Name+" "+s.Source+" "+s.Description)
	}
	want := []string{"notes user Take notes.", "release " + ws + " Cut a release.", "review " + ws + " Review a change."}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	var msgs []string
	for _, err := range errs {
		msgs = append(msgs, strings.ReplaceAll(strings.ReplaceAll(err.Error(), ws, "WS"), user, "USER"))
	}
	for _, want := range []string{
		`WS/.agents/skills/release/SKILL.md: skill "release" left out: WS/.agentls/skills/release/SKILL.md has a skill of that name, which wins`,
		"WS/.agents/skills/broken/SKILL.md: front matter: yaml",
		`WS/.agents/skills/misnamed/SKILL.md: name "other-name" must be the name of the skill's folder, "misnamed"`,
		"WS/.agents/skills/evil/SKILL.md: left out: the skill's folder leads to",
		"WS/.agents/skills/linked/SKILL.md: left out: it leads to",
		`USER/skills/review/SKILL.md: skill "review" left out: WS/.gemini/skills/review/SKILL.md has a skill of that name, which wins`,
	} {
		if !strings.Contains(strings.Join(msgs, "\n"), want) {
			t.Errorf("no report %q in:\n%s", want, strings.Join(msgs, "\n"))
		}
	}
	if len(msgs) != 6 {
		t.Errorf("%d reports, want 6:\n%s", len(msgs), strings.Join(msgs, "\n"))
	}

	rel := found[1]
	body, files, total, err := rel.Body()
	if err != nil || body != "Tag it." || !cmp.Equal(files, []string{"scripts/tag.sh"}) || total != 1 {
		t.Errorf("Body() = %q, %v, %d, %v", body, files, total, err)
	}
	if !rel.Contains(filepath.Join(ws, ".agentls/skills/release/scripts/tag.sh")) || rel.Contains(filepath.Join(ws, ".gemini/skills/review/SKILL.md")) ||
		rel.Contains(filepath.Join(ws, ".agentls/skills/release/scripts/stolen.md")) {
		t.Error("Contains is wrong about the skill's files")
	}
	// A skill whose file changed after it was found says so.
	write(t, filepath.Join(ws, ".agentls/skills/release/SKILL.md"), "---\nname: release\n---\n")
	if _, _, _, err := rel.Body(); err == nil || !strings.Contains(err.Error(), "description is required") {
		t.Errorf("Body() of a broken skill: %v", err)
	}
}
