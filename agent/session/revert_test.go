package session_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/session"
)

func TestPlanRevert(t *testing.T) {
	t.Parallel()
	changes := []session.Change{
		{Path: "/w/a.go", Name: "a.go", Before: "a\nb\nc\nd\n", After: "a\nB\nc\nd\n"},
		{Path: "/w/new.go", Name: "new.go", After: "x\n", Create: true},
		{Path: "/w/a.go", Name: "a.go", Before: "a\nB\nc\nd\n", After: "a\nB\nc\nD\n"}, // a second change to a.go
		{Path: "/w/gone.go", Name: "gone.go", Before: "g\n", After: "G\n"},
		{Path: "/w/mine.go", Name: "mine.go", Before: "m\n", After: "M\n"},
		{Path: "/w/kept.go", Name: "kept.go", After: "k\n", Create: true},
		{Path: "/etc/passwd", Name: "passwd", Before: "root\n", After: "x\n"}, // a session file edited by hand
	}
	disk := map[string]string{
		"/w/a.go":    "top\na\nB\nc\nD\n", // the user typed a line above since
		"/w/new.go":  "x\n",
		"/w/mine.go": "MINE\n", // the user changed the run's line
		"/w/kept.go": "k\nmore\n",
	}
	files, err := session.PlanRevert("/w", changes, func(p string) (string, bool, error) {
		if p == "/etc/passwd" {
			t.Error("the plan read a file outside the workspace folder")
		}
		text, ok := disk[p]
		return text, ok, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	type plan struct {
		Name, Target string
		Remove       bool
		Settled      string
	}
	var got []plan
	for _, f := range files {
		p := plan{Name: f.Name, Target: f.Target, Remove: f.Remove}
		if rf, ok := f.Settled(); ok {
			p.Settled = rf.Outcome + ": " + rf.Message
		}
		got = append(got, p)
	}
	want := []plan{
		{Name: "a.go", Target: "top\na\nb\nc\nd\n"},
		{Name: "new.go", Target: "", Remove: true},
		{Name: "gone.go", Target: "", Settled: "conflict: deleted since the run"},
		{Name: "mine.go", Target: "MINE\n", Settled: "conflict: you have changed every line the run changed: line 1 left as you changed it"},
		{Name: "kept.go", Target: "more\n"}, // the user's line stays: not deleted
		{Name: "passwd", Settled: "failed: outside the session's workspace folder: left alone"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("plans (-want +got):\n%s", diff)
	}
	if rf := files[1].Applied(false, false); rf.Outcome != session.Emptied {
		t.Errorf("a file to delete, not deleted: %+v", rf)
	}
	if rf := files[1].Applied(true, false); rf.Outcome != session.Deleted {
		t.Errorf("a deleted file: %+v", rf)
	}
	if s := session.Summary("main-1", []session.RevertedFile{{Name: "a.go", Outcome: session.Reverted}, {Name: "b.go", Outcome: session.Declined}}); s != "Reverted run main-1 in part: a.go reverted, b.go declined." {
		t.Errorf("summary %q", s)
	}
}
