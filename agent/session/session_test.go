package session_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/session"
)

// clock is a fake clock that moves a second a reading.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(time.Second)
	return c.t
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)} }

const root = "/home/u/proj"

// history is a conversation with everything a history holds: text, a
// thought signature of arbitrary bytes on a call with an id and nested
// arguments, a signature-only part, function responses.
func history() []*genai.Content {
	return []*genai.Content{
		genai.NewContentFromText("explain main.go\n\nActive file: main.go\n", genai.RoleUser),
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{Text: "Reading it."},
			{FunctionCall: &genai.FunctionCall{ID: "call_1", Name: "read_file", Args: map[string]any{"file_path": "main.go", "opts": map[string]any{"limit": 10.0, "tags": []any{"a", "b"}}}},
				ThoughtSignature: []byte{0, 1, 2, 0x7f, 0x80, 0xfe, 0xff, '\n', '"'}},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "call_1", Name: "read_file", Response: map[string]any{"output": "package main\n\nfunc main() {}\n"}}}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{
			{FunctionCall: &genai.FunctionCall{Name: "complete_task", Args: map[string]any{"result": "It does nothing."}}, ThoughtSignature: []byte("sig-2")},
			{ThoughtSignature: []byte("trailing")},
		}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "complete_task", Response: map[string]any{"output": "done"}}}}},
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run writes one run into session id: its history in two changes, one
// accepted change, its end.
func run(t *testing.T, st *session.Store, id, runID string, h []*genai.Content, changes ...session.Change) {
	t.Helper()
	w, err := st.Lock(root, id, runID)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if err := w.BeginRun(runID, "explain main.go", "gemini-flash-latest"); err != nil {
		t.Fatal(err)
	}
	before := len(w.History())
	w.SaveHistory(agent.HistoryChange{Keep: before, Add: h[before : before+1]})
	w.SaveHistory(agent.HistoryChange{Keep: before + 1, Add: h[before+1:]})
	for _, c := range changes {
		w.Change(c)
	}
	if err := w.EndRun(agent.RunEnd{Reason: agent.StopGoal, Result: "ok", Turns: 2}, agent.Usage{Prompt: 100, Output: 10, Cost: 0.25}); err != nil {
		t.Fatal(err)
	}
	if err := w.Err(); err != nil {
		t.Fatal(err)
	}
}

// TestRestart: a session written by one store reads back in another (a
// new process) with exactly its history, thought signatures byte for byte.
func TestRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := session.NewStore(dir, newClock().now)
	id, err := st.Create(root, "explain main.go")
	if err != nil {
		t.Fatal(err)
	}
	want := history()
	run(t, st, id, "main-1", want)

	again := session.NewStore(dir, newClock().now)
	w, err := again.Lock(root, id, "main-2")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	got := w.History()
	if diff := cmp.Diff(mustJSON(t, want), mustJSON(t, got)); diff != "" {
		t.Errorf("history after a restart (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("history after a restart (-want +got):\n%s", diff)
	}
	if sig := got[1].Parts[1].ThoughtSignature; !bytes.Equal(sig, want[1].Parts[1].ThoughtSignature) {
		t.Errorf("signature %v, want %v", sig, want[1].Parts[1].ThoughtSignature)
	}
	info := w.Info()
	if info.Title != "explain main.go" || info.Root != root || len(info.Runs) != 1 || info.Runs[0].End == nil || info.Usage.Cost != 0.25 {
		t.Errorf("info = %+v", info)
	}
	fi, err := os.Stat(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("session file mode %v, want 0600", fi.Mode().Perm())
	}
	if strings.HasPrefix(w.Path(), root) || !strings.HasPrefix(w.Path(), dir) {
		t.Errorf("session file %s is not under the state directory", w.Path())
	}
}

// TestTornRecord: a record cut short by a crash is left out, and cut off
// before the next write, so the file keeps reading.
func TestTornRecord(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := session.NewStore(dir, newClock().now)
	id, _ := st.Create(root, "t")
	run(t, st, id, "main-1", history())
	w, _ := st.Lock(root, id, "x")
	path := w.Path()
	w.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"run","run":"main-2","pro`)
	f.Close()

	w, err = session.NewStore(dir, nil).Lock(root, id, "main-2")
	if err != nil {
		t.Fatalf("a torn last record: %v", err)
	}
	if len(w.History()) != 5 {
		t.Errorf("history has %d contents, want 5", len(w.History()))
	}
	if err := w.BeginRun("main-2", "more", ""); err != nil {
		t.Fatal(err)
	}
	w.Close()
	info, err := st.Get(root, id)
	if err != nil {
		t.Fatalf("after the write: %v", err)
	}
	if len(info.Runs) != 2 || info.Runs[1].ID != "main-2" {
		t.Errorf("runs = %+v", info.Runs)
	}
}

// TestUnreadable: a corrupt file and a newer one get a clear error and are
// never written; a listing names them; they can be deleted.
func TestUnreadable(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		edit func(lines []string) []string
		want error
		msg  string
	}{
		{"garbage line", func(l []string) []string { l[2] = "not json"; return l }, session.ErrCorrupt, "line 3"},
		{"unknown record", func(l []string) []string { l[2] = `{"type":"mystery"}`; return l }, session.ErrCorrupt, `unknown record type "mystery"`},
		{"history out of step", func(l []string) []string {
			return append(l, `{"type":"history","run":"main-1","history":{"keep":99,"add":[]}}`)
		}, session.ErrCorrupt, "keeps 99 of 5"},
		{"no header", func(l []string) []string { return l[1:] }, session.ErrCorrupt, "not a session header"},
		{"newer format", func(l []string) []string {
			l[0] = strings.Replace(l[0], `"format":1`, `"format":7`, 1)
			return l
		}, session.ErrNewer, "format 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			st := session.NewStore(dir, newClock().now)
			id, _ := st.Create(root, "t")
			run(t, st, id, "main-1", history())
			paths, _ := filepath.Glob(filepath.Join(dir, "*", id+".jsonl"))
			b, _ := os.ReadFile(paths[0])
			lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
			bad := []byte(strings.Join(tt.edit(lines), "\n") + "\n")
			os.WriteFile(paths[0], bad, 0o600)

			_, err := st.Lock(root, id, "main-2")
			if !errors.Is(err, tt.want) || !strings.Contains(err.Error(), tt.msg) || !strings.Contains(err.Error(), id) {
				t.Errorf("Lock: %v, want %v naming %q and the session", err, tt.want, tt.msg)
			}
			if _, err := st.Get(root, id); !errors.Is(err, tt.want) {
				t.Errorf("Get: %v", err)
			}
			infos, problems, err := st.List(root)
			if err != nil || len(infos) != 0 || len(problems) != 1 || problems[0].ID != id || !errors.Is(problems[0], tt.want) {
				t.Errorf("List = %v, %v, %v", infos, problems, err)
			}
			if _, err := st.Latest(root); !errors.Is(err, tt.want) {
				t.Errorf("Latest: %v, want the latest session's problem", err)
			}
			if now, _ := os.ReadFile(paths[0]); !bytes.Equal(now, bad) {
				t.Error("the unreadable file was written")
			}
			if err := st.Delete(root, id); err != nil {
				t.Errorf("Delete: %v", err)
			}
			if _, err := os.Stat(paths[0]); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("the file is still there: %v", err)
			}
		})
	}
}

func TestBusy(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	st := session.NewStore(dir, nil)
	id, _ := st.Create(root, "t")
	w, err := st.Lock(root, id, "main-1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Lock(root, id, "main-2"); !errors.Is(err, session.ErrBusy) || !strings.Contains(err.Error(), "main-1 is running") {
		t.Errorf("a second run: %v", err)
	}
	if err := st.Delete(root, id); !errors.Is(err, session.ErrBusy) {
		t.Errorf("Delete while busy: %v", err)
	}
	if info, _ := st.Get(root, id); info.Busy != "main-1" {
		t.Errorf("Busy = %q", info.Busy)
	}
	// Another store is another process: the file's lock stops it.
	if _, err := session.NewStore(dir, nil).Lock(root, id, "main-3"); !errors.Is(err, session.ErrBusy) || !strings.Contains(err.Error(), "another agentls process") {
		t.Errorf("another process: %v", err)
	}
	w.Close()
	w2, err := st.Lock(root, id, "main-2")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	w2.Close()
}

func TestUnknownSession(t *testing.T) {
	t.Parallel()
	st := session.NewStore(t.TempDir(), nil)
	id, _ := st.Create(root, "t")
	for _, bad := range []string{"s-00000000", "../../etc/passwd", "", "s-" + strings.Repeat("a", 8) + "/x"} {
		if _, err := st.Lock(root, bad, "r"); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Lock(%q): %v", bad, err)
		}
		if err := st.Delete(root, bad); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Delete(%q): %v", bad, err)
		}
	}
	// A session of another folder is not this one's.
	if _, err := st.Lock("/elsewhere", id, "r"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("another folder's session: %v", err)
	}
	if err := st.Delete(root, id); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Lock(root, id, "r"); !errors.Is(err, session.ErrNotFound) || !strings.Contains(err.Error(), "deleted") {
		t.Errorf("a deleted session: %v", err)
	}
}

func TestRevertable(t *testing.T) {
	t.Parallel()
	st := session.NewStore(t.TempDir(), newClock().now)
	id, _ := st.Create(root, "t")
	a1 := session.Change{Path: "/w/a.go", Name: "a.go", Before: "a\n", After: "b\n"}
	a2 := session.Change{Path: "/w/a.go", Name: "a.go", Before: "b\n", After: "c\n"}
	n := session.Change{Path: "/w/new.go", Name: "new.go", After: "new\n", Create: true}
	run(t, st, id, "main-1", history(), a1, n, a2)
	run(t, st, id, "main-2", append(history(), history()...))

	w, err := st.Lock(root, id, "revert")
	if err != nil {
		t.Fatal(err)
	}
	got, err := w.Revertable("main-1")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]session.Change{a1, n, a2}, got); diff != "" {
		t.Errorf("revertable (-want +got):\n%s", diff)
	}
	if _, err := w.Revertable("main-2"); !errors.Is(err, session.ErrNothingToRevert) || !strings.Contains(err.Error(), "changed no file") {
		t.Errorf("a run without changes: %v", err)
	}
	if _, err := w.Revertable("main-9"); !errors.Is(err, session.ErrNotFound) {
		t.Errorf("a run of no session: %v", err)
	}
	rv := session.Revert{Run: "main-1", Files: []session.RevertedFile{
		{Name: "a.go", Outcome: session.Reverted},
		{Name: "new.go", Outcome: session.Conflict, Message: "you changed it since"},
	}}
	if err := w.Reverted(rv); err != nil {
		t.Fatal(err)
	}
	if got, _ := w.Revertable("main-1"); len(got) != 1 || got[0].Name != "new.go" {
		t.Errorf("after a partial revert: %+v", got)
	}
	w.Close()

	w, _ = st.Lock(root, id, "main-3")
	notes := w.Notes()
	if len(notes) != 1 || !strings.Contains(notes[0], "(main-1): a.go are back") || !strings.Contains(notes[0], "Not reverted: new.go (you changed it since)") {
		t.Errorf("notes = %q", notes)
	}
	w.BeginRun("main-3", "go on", "")
	if w.Notes() != nil {
		t.Errorf("notes after the next run began: %q", w.Notes())
	}
	w.Close()
	info, _ := st.Get(root, id)
	if !info.Runs[0].Reverted || info.Runs[1].Reverted || info.Runs[0].Changes != 3 {
		t.Errorf("runs = %+v", info.Runs)
	}
}

func TestListAndLatest(t *testing.T) {
	t.Parallel()
	for _, dir := range []string{t.TempDir(), ""} {
		st := session.NewStore(dir, newClock().now)
		if st.Persistent() != (dir != "") {
			t.Errorf("Persistent() = %v for %q", st.Persistent(), dir)
		}
		if _, err := st.Latest(root); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("Latest of nothing: %v", err)
		}
		first, _ := st.Create(root, "first")
		second, _ := st.Create(root, "second")
		other, _ := st.Create("/elsewhere", "other")
		run(t, st, second, "main-1", history())
		run(t, st, first, "main-2", history())
		infos, problems, err := st.List(root)
		if err != nil || len(problems) != 0 {
			t.Fatal(err, problems)
		}
		var ids []string
		for _, i := range infos {
			ids = append(ids, i.ID)
		}
		if diff := cmp.Diff([]string{first, second}, ids); diff != "" {
			t.Errorf("%q: List (-want +got):\n%s", dir, diff)
		}
		latest, err := st.Latest(root)
		if err != nil || latest.ID != first {
			t.Errorf("%q: Latest = %s, %v; want %s", dir, latest.ID, err, first)
		}
		found, err := st.FindRun([]string{"/elsewhere", root}, "main-1")
		if err != nil || found.ID != second {
			t.Errorf("FindRun = %s, %v", found.ID, err)
		}
		if _, err := st.FindRun([]string{root}, "main-9"); !errors.Is(err, session.ErrNotFound) {
			t.Errorf("FindRun of no run: %v", err)
		}
		if all, _, _ := st.List(root, "/elsewhere"); len(all) != 3 || all[2].ID != other {
			t.Errorf("List of two folders = %+v", all)
		}
	}
}

func TestDir(t *testing.T) {
	t.Parallel()
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/u"}, "/home/u/.local/state/agentls/sessions"},
		{map[string]string{"HOME": "/home/u", "XDG_STATE_HOME": "/state"}, "/state/agentls/sessions"},
		{map[string]string{"HOME": "/home/u", session.EnvDir: "/s"}, "/s"},
		{map[string]string{"HOME": "/home/u", session.EnvDir: "off"}, ""},
	}
	for _, tt := range tests {
		got, err := session.Dir(env(tt.env))
		if err != nil || got != tt.want {
			t.Errorf("Dir(%v) = %q, %v; want %q", tt.env, got, err, tt.want)
		}
	}
	if _, err := session.Dir(env(nil)); !errors.Is(err, session.ErrNoDir) {
		t.Errorf("Dir without HOME: %v", err)
	}
}
