//go:build linux

package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

// pipes are a process's stdin and stdout as one stream.
type pipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p pipes) Close() error { p.WriteCloser.Close(); return p.ReadCloser.Close() }

// serve starts agentls serve as a process of its own and connects a test
// editor to it over its stdin and stdout.
func (p *process) serve(env map[string]string) (*lsptest.Editor, *exec.Cmd) {
	p.t.Helper()
	p.own()
	env["AGENTLS_TEST_MAIN"] = "1"
	env["XDG_CONFIG_HOME"] = filepath.Join(p.dir, "config")
	env["XDG_STATE_HOME"] = filepath.Join(p.dir, "state")
	env["PATH"] = os.Getenv("PATH")
	cmd := exec.Command(p.exe, "serve")
	cmd.Env, cmd.Dir = environ(env), p.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	in, err := cmd.StdinPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		p.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		p.t.Skipf("cannot start agentls as a process of its own: %v", err)
	}
	p.t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return lsptest.New(p.t, jsonrpc2.NewStream(pipes{out, in})), cmd
}

// stopServer ends a server the way an editor does: shutdown, then exit.
func stopServer(t *testing.T, ed *lsptest.Editor, cmd *exec.Cmd) {
	t.Helper()
	if err := ed.Server.Shutdown(t.Context()); err != nil {
		t.Fatal(err)
	}
	ed.Server.Exit(t.Context())
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agentls serve: %v", err)
	}
}

func command(t *testing.T, ed *lsptest.Editor, name string, arg, out any) {
	t.Helper()
	b, _ := json.Marshal(arg)
	res, err := ed.Server.ExecuteCommand(t.Context(), &protocol.ExecuteCommandParams{Command: name, Arguments: []protocol.LSPAny{b}})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if err := json.Unmarshal(res, out); err != nil {
		t.Fatalf("%s answered %s: %v", name, res, err)
	}
}

// waitRun waits for the run's progress end.
func waitRun(t *testing.T, ed *lsptest.Editor, runID string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	_, m, err := ed.Next(ctx, 0, func(m lsptest.Message) bool {
		return m.Method == protocol.MethodProgress && strings.Contains(string(m.Params), `"kind":"end"`) &&
			strings.Contains(string(m.Params), `"token":"agentls/`+runID+`"`)
	})
	if err != nil {
		t.Fatalf("waiting for %s: %v", runID, err)
	}
	return string(m.Params)
}

// A session outlives its server: agentls serve runs a task, and exits; a
// new agentls serve (a new process) follows it up with exactly the first
// run's turns, thought signature included, and reverts the first run's
// accepted change.
func TestSessionSurvivesRestart(t *testing.T) {
	t.Parallel()
	p := newProcess(t)
	ws := filepath.Join(p.dir, "ws")
	const before = "package main\n\nfunc Hello() string { return \"hi\" }\n"
	path := filepath.Join(ws, "main.go")
	write(t, path, before)
	signed := geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "func Hello()", "new_string": "func Greet()"})
	signed.ThoughtSignature = []byte{0x01, 0xfe, 's', 'i', 'g'}
	srv := geminitest.NewServer(t,
		geminitest.Reply(signed),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Renamed."})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "It returns hi."})))
	env := func() map[string]string {
		return map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL, "HOME": p.dir}
	}

	ed, cmd := p.serve(env())
	ed.Initialize(t.Context(), ws, nil, map[string]any{"events": true})
	var first contract.RunResult
	command(t, ed, contract.CommandRun, contract.RunArgs{Prompt: "rename Hello to Greet"}, &first)
	waitRun(t, ed, first.RunID)
	renamed, open := ed.Buffer(workspace.URIFromPath(path))
	if !open || !strings.Contains(renamed, "func Greet()") {
		t.Fatalf("the editor holds %q (open %v)", renamed, open)
	}
	write(t, path, renamed) // the user saves
	stopServer(t, ed, cmd)

	ed, cmd = p.serve(env())
	ed.Initialize(t.Context(), ws, nil, map[string]any{"events": true})
	var list contract.SessionsResult
	command(t, ed, contract.CommandSessions, contract.SessionsArgs{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != first.SessionID || !list.Persistent || list.Sessions[0].Runs[0].Changes != 1 {
		t.Fatalf("the new server lists %+v", list)
	}
	var second contract.RunResult
	command(t, ed, contract.CommandRun, contract.RunArgs{Prompt: "what does it return?", SessionID: first.SessionID}, &second)
	waitRun(t, ed, second.RunID)
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(reqs))
	}
	// The follow-up sends every content the first run sent, and its answers.
	was, now := reqs[1].Contents, reqs[2].Contents
	if len(now) != len(was)+2 {
		t.Fatalf("the follow-up sends %d contents; the first run's last request had %d", len(now), len(was))
	}
	for i, c := range was {
		a, _ := json.Marshal(c)
		b, _ := json.Marshal(now[i])
		if string(a) != string(b) {
			t.Errorf("content %d differs after the restart:\n%s\n%s", i, a, b)
		}
	}
	if sig := now[1].Parts[0].ThoughtSignature; string(sig) != string(signed.ThoughtSignature) {
		t.Errorf("the signature after the restart is %q", sig)
	}

	var rv contract.RevertResult
	command(t, ed, contract.CommandRevert, contract.RevertArgs{RunID: first.RunID}, &rv)
	if rv.Outcome != "applied" || len(rv.Files) != 1 || rv.Files[0].Outcome != "reverted" {
		t.Errorf("revert after the restart: %+v", rv)
	}
	if text, _ := ed.Buffer(workspace.URIFromPath(path)); text != before {
		t.Errorf("after the revert main.go is %q", text)
	}
	stopServer(t, ed, cmd)
}
