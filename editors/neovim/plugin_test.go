package neovim_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// :AgentRun, progress, the inline preview, ga: the buffer holds the change
// and is saved (save_on_accept), the model hears "accepted"; :AgentLog and
// :checkhealth tell what happened.
func TestAccept(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "accept",
			files:  map[string]string{"main.go": mainGo},
			turns:  renameTurns("Renamed Hello to Greet."),
		}.run(t, nv)
		r := s.res

		// Progress reached the editor.
		var begin, reports int
		for _, p := range r.Progress {
			if !strings.HasPrefix(p.Token, "agentls/") {
				t.Errorf("progress token %q", p.Token)
			}
			switch p.Kind {
			case "begin":
				begin++
				if !strings.Contains(p.Title, "rename the function Hello") {
					t.Errorf("progress title %q", p.Title)
				}
			case "report":
				reports++
			}
		}
		if begin != 1 || reports == 0 {
			t.Errorf("progress: %d begin, %d reports: %+v", begin, reports, r.Progress)
		}
		var status string
		r.get(t, "status_during", &status)
		if !strings.HasPrefix(status, "agentls: 1 run") {
			t.Errorf("status while the proposal was shown = %q", status)
		}

		// The preview: the old lines highlighted, the new ones virtual.
		var during string
		r.get(t, "buffer_during", &during)
		if during != "// edited in the buffer\n"+mainGo {
			t.Errorf("the preview changed the buffer:\n%s", during)
		}
		if fmt.Sprint(r.Preview.Deleted) != "[5 8]" {
			t.Errorf("deleted rows = %v, want [5 8]", r.Preview.Deleted)
		}
		wantAdded := []string{`func Greet() string { return "hi" }`, `        fmt.Println("héllo 日本 😀", Greet())`}
		if strings.Join(r.Preview.Added, "\n") != strings.Join(wantAdded, "\n") {
			t.Errorf("virtual lines = %q, want %q", r.Preview.Added, wantAdded)
		}
		for _, hl := range r.Preview.AddedHL {
			if hl != "AgentlsAdd" {
				t.Errorf("virtual line highlight %q", hl)
			}
		}
		if len(r.Preview.Headers) != 2 || !strings.Contains(r.Preview.Headers[0], "ga/gr all") {
			t.Errorf("hunk headers = %q", r.Preview.Headers)
		}

		// Accepted: the buffer holds the change, saved with :write.
		if r.Buffer != mainGoRenamed {
			t.Errorf("buffer after accepting:\n%s", r.Buffer)
		}
		var modified bool
		r.get(t, "modified", &modified)
		if modified {
			t.Error("the buffer is still modified after accepting (save_on_accept)")
		}
		if got := s.disk(t, "main.go"); got != mainGoRenamed {
			t.Errorf("main.go on disk is not what was accepted:\n%s", got)
		}
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if !a.Applied || a.FailureReason != nil || a.Agentls == nil || len(a.Agentls.Files) != 1 {
			t.Fatalf("answer = %+v", a)
		}
		f := a.Agentls.Files[0]
		if f.Text != mainGoRenamed || len(f.RejectedHunks) != 0 || len(f.EditedHunks) != 0 || !strings.HasSuffix(f.URI, "/main.go") {
			t.Errorf("answer file = %+v", f)
		}
		var ofRun bool
		r.get(t, "proposal_run", &ofRun)
		if !ofRun {
			t.Error("the proposal is not matched with its run")
		}
		var mapped int
		r.get(t, "mappings_after", &mapped)
		if mapped != 0 {
			t.Error("the proposal keys are still mapped")
		}

		// The model heard that the change was accepted.
		if resp := s.functionResponses(t, 2); !strings.Contains(resp, "accepted") {
			t.Errorf("the model was told %s", resp)
		}
		if !s.sawEvent("edit_decided") || !s.sawEvent("run_end") {
			t.Errorf("events: %+v", r.Events)
		}
		if len(r.Runs) != 1 || r.Runs[0].Reason != "goal" || r.Runs[0].Result != "Renamed Hello to Greet." {
			t.Errorf("runs = %+v", r.Runs)
		}

		// :AgentLog holds the transcript.
		var logBuf []string
		var logName string
		r.get(t, "log_buffer", &logBuf)
		r.get(t, "log_name", &logName)
		log := strings.Join(logBuf, "\n")
		for _, want := range []string{"▶ main-", "💭 Reading main.go", "💭 Renaming Hello", "→ ", "✎ proposed change to main.go (+2 −2)",
			"✎ main.go: applied", "ended: goal — Renamed Hello to Greet."} {
			if !strings.Contains(log, want) {
				t.Errorf(":AgentLog lacks %q:\n%s", want, log)
			}
		}
		if logName != "agentls://log" {
			t.Errorf(":AgentLog buffer name %q", logName)
		}
		// :checkhealth agentls found the binary and the client.
		var health []string
		r.get(t, "health", &health)
		h := strings.Join(health, "\n")
		for _, want := range []string{"OK", "Neovim " + nv.version, ": agentls ", "client 1 (agentls", "1 buffer attached"} {
			if !strings.Contains(h, want) {
				t.Errorf(":checkhealth agentls lacks %q:\n%s", want, h)
			}
		}
		// The 0.7-0.9 way of answering later is loaded only there.
		var deferred bool
		r.get(t, "deferred_loaded", &deferred)
		if want := !nv.atLeast(0, 10); deferred != want {
			t.Errorf("agentls.compat.deferred loaded: %v, want %v", deferred, want)
		}
	})
}

// gr: the buffer stays as it was and the model hears "rejected".
func TestReject(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "reject",
			files:  map[string]string{"main.go": mainGo},
			turns:  renameTurns("The user declined the rename."),
		}.run(t, nv)
		r := s.res
		if len(r.Preview.Added) == 0 {
			t.Error("no preview was shown")
		}
		if r.Buffer != mainGo {
			t.Errorf("buffer after rejecting:\n%s", r.Buffer)
		}
		var modified bool
		r.get(t, "modified", &modified)
		if modified {
			t.Error("the buffer is modified after rejecting")
		}
		var after preview
		r.get(t, "preview_after", &after)
		if len(after.Added)+len(after.Deleted)+len(after.Headers) != 0 {
			t.Errorf("the preview is still shown: %+v", after)
		}
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if a.Applied || a.FailureReason == nil || *a.FailureReason != "rejected by the user" {
			t.Errorf("answer = %+v", a)
		}
		if a.Agentls == nil || len(a.Agentls.Files) != 1 || fmt.Sprint(a.Agentls.Files[0].RejectedHunks) != "[0 1]" {
			t.Errorf("answer extension = %+v", a.Agentls)
		}
		if resp := s.functionResponses(t, 2); !strings.Contains(resp, "rejected") {
			t.Errorf("the model was told %s", resp)
		}
	})
}

// Two hunks far apart: gx on the second, gh on the first; only the first is
// applied. With save_on_accept = false the buffer is left unsaved.
func TestHunks(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{
			script: "hunks",
			files:  map[string]string{"main.go": longGo("Hello")},
			turns:  renameTurns("Renamed Hello to Greet where the user agreed."),
		}.run(t, nv)
		r := s.res
		var rows []int
		r.get(t, "hunk_rows", &rows)
		if fmt.Sprint(rows) != "[2 29]" {
			t.Errorf("hunk rows = %v, want [2 29]", rows)
		}
		var states []string
		r.get(t, "states_after_gx", &states)
		if fmt.Sprint(states) != "[pending rejected]" {
			t.Errorf("after gx on hunk 2: %v", states)
		}
		var afterGx preview
		r.get(t, "preview_after_gx", &afterGx)
		if len(afterGx.Added) != 1 || !strings.Contains(afterGx.Added[0], "Greet") || !strings.Contains(strings.Join(afterGx.Headers, "|"), "2/2: rejected") {
			t.Errorf("preview after gx: %+v", afterGx)
		}
		// Only hunk 1 was applied, and not saved.
		want := strings.Replace(longGo("Hello"), "func Hello()", "func Greet()", 1)
		if r.Buffer != want {
			t.Errorf("buffer:\n%s", r.Buffer)
		}
		var modified bool
		r.get(t, "modified", &modified)
		if got := s.disk(t, "main.go"); got != longGo("Hello") || !modified {
			t.Errorf("with save_on_accept = false: modified %v, main.go on disk changed: %v", modified, got != longGo("Hello"))
		}
		// What the plugin told the server.
		if len(r.Answers) != 1 {
			t.Fatalf("answers = %+v", r.Answers)
		}
		a := r.Answers[0]
		if !a.Applied || a.FailureReason != nil || a.Agentls == nil || len(a.Agentls.Files) != 1 {
			t.Fatalf("answer = %+v", a)
		}
		f := a.Agentls.Files[0]
		if fmt.Sprint(f.RejectedHunks) != "[1]" || len(f.EditedHunks) != 0 || f.Text != want {
			t.Errorf("answer file = %+v", f)
		}
		if resp := s.functionResponses(t, 2); !strings.Contains(resp, "only in part") || !strings.Contains(resp, "hunk 2 of 2") {
			t.Errorf("the model was told %s", resp)
		}
	})
}

// :AgentCancel while the model thinks: the run ends aborted, nothing is
// proposed.
func TestCancel(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		turns := renameTurns("never")
		turns[0].Delay = 30 * time.Second // the model is still thinking when the user cancels
		s := scenario{script: "cancel", files: map[string]string{"main.go": mainGo}, turns: turns}.run(t, nv)
		r := s.res
		var reason string
		r.get(t, "reason", &reason)
		if reason != "aborted" {
			t.Errorf("run ended with %q, want aborted", reason)
		}
		var during, after string
		r.get(t, "status_during", &during)
		r.get(t, "status_after", &after)
		if !strings.HasPrefix(during, "agentls: 1 run") || after != "" {
			t.Errorf("status during %q, after %q", during, after)
		}
		if r.Buffer != mainGo {
			t.Errorf("buffer changed:\n%s", r.Buffer)
		}
		if len(r.Answers) != 0 || r.Pending != 0 || len(r.Preview.Added)+len(r.Preview.Headers) != 0 {
			t.Errorf("a proposal was shown: answers %+v, pending %d, preview %+v", r.Answers, r.Pending, r.Preview)
		}
		if s.sawEvent("edit_proposed") {
			t.Error("an edit was proposed after the cancel")
		}
	})
}

// :AgentCancel while a proposal is shown: the proposal is withdrawn.
func TestWithdraw(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{script: "withdraw", files: map[string]string{"main.go": mainGo}, turns: renameTurns("never")}.run(t, nv)
		r := s.res
		var before preview
		r.get(t, "preview_before", &before)
		if len(before.Added) == 0 {
			t.Error("no preview before the cancel")
		}
		var reason, withdrawn string
		var mapped int
		r.get(t, "reason", &reason)
		r.get(t, "withdrawn", &withdrawn)
		r.get(t, "mapped", &mapped)
		if reason != "aborted" || withdrawn == "" {
			t.Errorf("run ended %q, proposal withdrawn %q", reason, withdrawn)
		}
		if r.Buffer != mainGo || len(r.Preview.Added)+len(r.Preview.Deleted)+len(r.Preview.Headers) != 0 || mapped != 0 {
			t.Errorf("after the cancel: buffer\n%s\npreview %+v, keys mapped %v", r.Buffer, r.Preview, mapped != 0)
		}
	})
}

// The server dies (SIGKILL) while a proposal is shown: it is withdrawn
// because the server exited, and nothing is applied.
func TestServerExit(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		s := scenario{script: "server_exit", files: map[string]string{"main.go": mainGo}, turns: renameTurns("never")}.run(t, nv)
		r := s.res
		var before preview
		var withdrawn, status string
		r.get(t, "preview_before", &before)
		r.get(t, "withdrawn", &withdrawn)
		r.get(t, "status", &status)
		if len(before.Added) == 0 || withdrawn != "the server exited" {
			t.Errorf("preview before %+v, withdrawn %q", before, withdrawn)
		}
		if r.Buffer != mainGo || len(r.Preview.Added)+len(r.Preview.Deleted)+len(r.Preview.Headers) != 0 || status != "" {
			t.Errorf("after the server died: buffer\n%s\npreview %+v, status %q", r.Buffer, r.Preview, status)
		}
	})
}

// ge: the user's own text for a hunk, then ga.
func TestEditHunk(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		src := "package main\n\n// Hello returns a greeting.\nfunc Hello() string { return \"hi\" }\n\nfunc main() {\n\tprintln(Hello())\n}\n"
		s := scenario{
			script: "edit",
			files:  map[string]string{"main.go": src},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello",
					"new_string": "Greet", "expected_replacements": 3})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})),
			},
		}.run(t, nv)
		r := s.res
		var scratch []string
		r.get(t, "scratch_lines", &scratch)
		if strings.Join(scratch, "\n") != "// Greet returns a greeting.\nfunc Greet() string { return \"hi\" }" {
			t.Errorf("the scratch buffer held %q", scratch)
		}
		want := "package main\n\n// Salute returns a greeting.\nfunc Salute() string { return \"hi\" }\n\nfunc main() {\n\tprintln(Greet())\n}\n"
		if r.Buffer != want {
			t.Errorf("buffer:\n%s", r.Buffer)
		}
		if len(r.Answers) != 1 || r.Answers[0].Agentls == nil {
			t.Fatalf("answers = %+v", r.Answers)
		}
		f := r.Answers[0].Agentls.Files[0]
		if !r.Answers[0].Applied || fmt.Sprint(f.EditedHunks) != "[0]" || len(f.RejectedHunks) != 0 || f.Text != want {
			t.Errorf("answer = %+v, file %+v", r.Answers[0], f)
		}
	})
}

// write_file of a new file: shown in a new buffer, accepted, attached and
// saved (its folder made).
func TestCreate(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		content := "package greet\n\nfunc Greet() string { return \"hi\" }\n"
		s := scenario{
			script: "create",
			files:  map[string]string{"main.go": mainGo},
			turns: []geminitest.Turn{
				geminitest.Reply(geminitest.Call("write_file", map[string]any{"file_path": "greet/greet.go", "content": content})),
				geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Added greet/greet.go."})),
			},
		}.run(t, nv)
		r := s.res
		var create, modified, attached bool
		var name string
		r.get(t, "create", &create)
		r.get(t, "modified", &modified)
		r.get(t, "attached", &attached)
		r.get(t, "name", &name)
		if !create || name != "greet.go" || modified || !attached {
			t.Errorf("create %v, name %q, modified %v, attached %v", create, name, modified, attached)
		}
		if strings.Join(r.Preview.Added, "\n")+"\n" != content {
			t.Errorf("preview of the new file: %q", r.Preview.Added)
		}
		if r.Buffer != content {
			t.Errorf("new buffer:\n%s", r.Buffer)
		}
		if b, err := os.ReadFile(filepath.Join(s.ws, "greet", "greet.go")); err != nil || string(b) != content {
			t.Errorf("greet/greet.go on disk: %q, %v", b, err)
		}
		if len(r.Answers) != 1 || !r.Answers[0].Applied {
			t.Errorf("answers = %+v", r.Answers)
		}
		if resp := s.functionResponses(t, 1); !strings.Contains(resp, "accepted") {
			t.Errorf("the model was told %s", resp)
		}
	})
}
