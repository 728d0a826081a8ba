package lsp_test

import (
	"github.com/agentls/agentls/contract"
	"regexp"

	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

// session is one server, its fake model and a test editor, connected over a
// real jsonrpc2 stream pair.
type session struct {
	ed      *lsptest.Editor
	gem     *geminitest.Server
	root    string
	userDir string // the server's user config folder
}

func newSession(t testing.TB, turns ...geminitest.Turn) *session {
	t.Helper()
	s, _ := newSessionDone(t, turns...)
	return s
}

// newSessionDone is newSession that also returns a channel closed when
// Serve returns.
func newSessionDone(t testing.TB, turns ...geminitest.Turn) (*session, <-chan struct{}) {
	t.Helper()
	return startSession(t, lsp.Config{}, turns...)
}

// startSession starts a server configured by cfg, with the fake model, a
// user folder and the version filled in.
func startSession(t testing.TB, cfg lsp.Config, turns ...geminitest.Turn) (*session, <-chan struct{}) {
	t.Helper()
	gem := geminitest.NewServer(t, turns...)
	userDir := t.TempDir()
	cfg.NewModel = func(ctx context.Context, model string) (agent.Model, error) {
		return gemini.New(ctx, gemini.Config{APIKey: "test-key", BaseURL: gem.URL, Model: model,
			Getenv: func(string) string { return "" }})
	}
	cfg.Version, cfg.UserConfigDir = "test", userDir
	srv := lsp.New(cfg)
	serverSide, clientSide := jsonrpc2.NewChannelStreamPair(64)
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	var serveErr error
	go func() {
		defer close(done)
		serveErr = srv.ServeStream(ctx, serverSide, stop)
	}()
	t.Cleanup(func() {
		stop()
		<-done
		if serveErr != nil {
			t.Errorf("serve: %v", serveErr)
		}
	})
	return &session{ed: lsptest.New(t, clientSide), gem: gem, root: t.TempDir(), userDir: userDir}, done
}

// trust trusts the session's workspace policy file as it is, so that its
// allow rules apply.
func (s *session) trust(t testing.TB) {
	t.Helper()
	eng := policy.New(filepath.Join(s.userDir, "policy.toml"))
	st, err := eng.TrustState(s.root)
	if err == nil {
		err = eng.Trust(s.root, st.Hash)
	}
	if err != nil {
		t.Fatal(err)
	}
}

const mainGo = `package main

import "fmt"

func Hello() string { return "hi" }

func main() {
	fmt.Println("héllo 日本 😀", Hello())
}
`

const mainGoRenamed = `package main

import "fmt"

func Greet() string { return "hi" }

func main() {
	fmt.Println("héllo 日本 😀", Greet())
}
`

func renameTurns() []geminitest.Turn {
	return []geminitest.Turn{
		geminitest.Reply(
			geminitest.Thought("**Reading the file**\n\nI need to see main.go first."),
			geminitest.Call("read_file", map[string]any{"file_path": "main.go"})),
		geminitest.Reply(
			geminitest.Thought("**Renaming Hello**\n\nBoth the declaration and the call change."),
			geminitest.Call("replace", map[string]any{"file_path": "main.go", "old_string": "Hello()",
				"new_string": "Greet()", "expected_replacements": 2})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "Renamed Hello to Greet."})),
	}
}

func TestRunProposesEditAndUserAccepts(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t, renameTurns()...)
	res := s.ed.Initialize(ctx, s.root, nil, nil)
	if got := res.Capabilities.PositionEncoding; got != protocol.PositionEncodingKindUTF16 {
		t.Errorf("position encoding = %q, want utf-16", got)
	}
	path := filepath.Join(s.root, "main.go")
	os.WriteFile(path, []byte("package main\n"), 0o644) // disk differs: the buffer wins
	u := s.ed.Open(ctx, path, mainGo)

	runID, err := s.ed.Run(ctx, map[string]any{"prompt": "rename the function Hello to Greet in main.go", "uri": u})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(runID, "main-") {
		t.Errorf("run id = %q", runID)
	}
	// The progress end: the result, then what the run used.
	end := s.ed.ProgressEnd()
	if result, usage, _ := strings.Cut(end, "\n"); result != "Renamed Hello to Greet." || !usageLine.MatchString(usage) {
		t.Errorf("progress end = %q, want the result and a usage line", end)
	}

	// The proposal: versioned against the open buffer, annotated, with
	// UTF-16 ranges that an independent applier turns into the renamed file.
	m := s.ed.WaitFor("applyEdit", isMethod(protocol.MethodWorkspaceApplyEdit))
	var p protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	if len(p.Edit.DocumentChanges) != 1 {
		t.Fatalf("documentChanges = %d, want 1", len(p.Edit.DocumentChanges))
	}
	tde, ok := p.Edit.DocumentChanges[0].(*protocol.TextDocumentEdit)
	if !ok {
		t.Fatalf("document change is %T", p.Edit.DocumentChanges[0])
	}
	if v := tde.TextDocument.Version; v == nil || *v != 1 {
		t.Errorf("edit version = %v, want 1", v)
	}
	var plain []protocol.TextEdit
	for _, el := range tde.Edits {
		ae, ok := el.(*protocol.AnnotatedTextEdit)
		if !ok {
			t.Fatalf("edit is %T, want an annotated edit", el)
		}
		ann, ok := p.Edit.ChangeAnnotations[ae.AnnotationID]
		if !ok || ann.NeedsConfirmation == nil || !*ann.NeedsConfirmation {
			t.Errorf("annotation %q = %+v, want needsConfirmation", ae.AnnotationID, ann)
		}
		if !strings.Contains(ann.Label, "main.go") {
			t.Errorf("annotation label %q does not name the file", ann.Label)
		}
		plain = append(plain, ae.TextEdit)
	}
	if got := applyUTF16(t, mainGo, plain); got != mainGoRenamed {
		t.Errorf("edits applied independently give:\n%s", got)
	}

	if got, _ := s.ed.Buffer(u); got != mainGoRenamed {
		t.Errorf("buffer after accepting:\n%s", got)
	}
	if disk, _ := os.ReadFile(path); string(disk) != "package main\n" {
		t.Errorf("the server wrote the file: %q", disk)
	}

	// The model's next turn heard that the edit was applied.
	reqs := s.gem.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model calls = %d, want 3", len(reqs))
	}
	if resp := lastFunctionResponse(t, reqs[2]); !strings.Contains(resp, "accepted") {
		t.Errorf("replace result told the model %q", resp)
	}
	// The thought subject reached the progress reports.
	if reports := strings.Join(s.ed.ProgressReports(), "\n"); !strings.Contains(reports, "Reading the file") &&
		!strings.Contains(reports, "Renaming Hello") {
		for _, m := range s.ed.Messages() {
			t.Logf("%s %s", m.Method, m.Params)
		}
		t.Errorf("no thought subject in progress reports:\n%s", reports)
	}
}

func TestCancelRun(t *testing.T) {
	t.Parallel()
	for _, how := range []string{"command", "progress"} {
		t.Run(how, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			turns := renameTurns()
			turns[0].Delay = time.Hour // the model is still thinking when the user cancels
			s := newSession(t, turns...)
			s.ed.Initialize(ctx, s.root, nil, map[string]any{"events": true})
			u := s.ed.Open(ctx, filepath.Join(s.root, "main.go"), mainGo)
			runID, err := s.ed.Run(ctx, map[string]any{"prompt": "rename", "uri": u})
			if err != nil {
				t.Fatal(err)
			}
			s.ed.WaitFor("turn_start", isEvent("turn_start"))
			switch how {
			case "command":
				b, _ := json.Marshal(map[string]string{"runId": runID})
				if _, err := s.ed.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: contract.CommandCancel, Arguments: []protocol.LSPAny{b}}); err != nil {
					t.Fatal(err)
				}
			case "progress":
				begin := s.ed.WaitFor("progress begin", isMethod(protocol.MethodProgress))
				var p struct {
					Token string `json:"token"`
				}
				json.Unmarshal(begin.Params, &p)
				if err := s.ed.Server.WorkDoneProgressCancel(ctx, &protocol.WorkDoneProgressCancelParams{Token: protocol.String(p.Token)}); err != nil {
					t.Fatal(err)
				}
			}
			if end := s.ed.ProgressEnd(); !strings.Contains(end, "aborted") {
				t.Errorf("progress end = %q, want aborted", end)
			}
			ev := s.ed.WaitFor("run_end", isEvent("run_end"))
			if !strings.Contains(string(ev.Params), `"reason":"aborted"`) {
				t.Errorf("run_end = %s", ev.Params)
			}
			for _, m := range s.ed.Messages() {
				if m.Method == protocol.MethodWorkspaceApplyEdit {
					t.Errorf("applyEdit after cancel: %s", m.Params)
				}
			}
			if got, _ := s.ed.Buffer(u); got != mainGo {
				t.Errorf("buffer changed:\n%s", got)
			}
		})
	}
}

// usageLine is the usage line of a progress end: the fake server's
// estimated tokens, priced as gemini-flash-latest.
var usageLine = regexp.MustCompile(`^[0-9.]+k tokens, \$0\.[0-9]+$`)

func TestBadCommands(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t)
	s.ed.Initialize(ctx, s.root, nil, nil)
	tests := []struct {
		name, command, args, want string
	}{
		{"unknown command", "agentls.nope", `{}`, `unknown command "agentls.nope" (agentls knows agentls.run, agentls.cancel, agentls.approvals, agentls.sessions, agentls.revert)`},
		{"missing prompt", contract.CommandRun, `{"uri":"file:///x"}`, "prompt"},
		{"blank prompt", contract.CommandRun, `{"prompt":"  "}`, "prompt"},
		{"wrong type", contract.CommandRun, `{"prompt":3}`, "agentls.run"},
		{"file outside workspace", contract.CommandRun, `{"prompt":"x","uri":"file:///etc/passwd"}`, "outside"},
		{"non-file uri", contract.CommandRun, `{"prompt":"x","uri":"untitled:Untitled-1"}`, "untitled"},
		{"cancel unknown run", contract.CommandCancel, `{"runId":"main-0"}`, "no running run"},
	}
	for _, tt := range tests {
		_, err := s.ed.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: tt.command, Arguments: []protocol.LSPAny{protocol.LSPAny(tt.args)}})
		var rpcErr *jsonrpc2.Error
		if !asRPC(err, &rpcErr) || rpcErr.Code != jsonrpc2.InvalidParams || !strings.Contains(rpcErr.Message, tt.want) {
			t.Errorf("%s: error = %v, want InvalidParams mentioning %q", tt.name, err, tt.want)
		}
	}
	// The connection survives bad notifications.
	s.ed.Server.DidChange(ctx, &protocol.DidChangeTextDocumentParams{TextDocument: protocol.VersionedTextDocumentIdentifier{
		TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: "file:///not/open.go"}, Version: 2}})
	if _, err := s.ed.Server.ExecuteCommand(ctx, &protocol.ExecuteCommandParams{Command: "agentls.nope", Arguments: []protocol.LSPAny{protocol.LSPAny(`{}`)}}); err == nil || !strings.Contains(err.Error(), "unknown command") {
		t.Errorf("after a bad notification: %v", err)
	}
}

func TestModelFailureEndsRunWithError(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t, geminitest.Turn{Status: 403, ErrMessage: "API key not valid"})
	s.ed.Initialize(ctx, s.root, nil, nil)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "hello"}); err != nil {
		t.Fatal(err)
	}
	end := s.ed.ProgressEnd()
	if !strings.Contains(end, "error") || !strings.Contains(end, "API key not valid") {
		t.Errorf("progress end = %q", end)
	}
	shown := s.ed.WaitFor("showMessage", isMethod(protocol.MethodWindowShowMessage))
	if !strings.Contains(string(shown.Params), "API key not valid") {
		t.Errorf("showMessage = %s", shown.Params)
	}
}

func TestToolPathOutsideWorkspace(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t,
		geminitest.Reply(geminitest.Call("write_file", map[string]any{"file_path": "../escape.txt", "content": "x"})),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "could not"})))
	s.ed.Initialize(ctx, s.root, nil, nil)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "write outside"}); err != nil {
		t.Fatal(err)
	}
	s.ed.ProgressEnd()
	if resp := lastFunctionResponse(t, s.gem.Requests()[1]); !strings.Contains(resp, "outside") {
		t.Errorf("write_file result = %q", resp)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(s.root), "escape.txt")); err == nil {
		t.Error("a file was written outside the workspace")
	}
	for _, m := range s.ed.Messages() {
		if m.Method == protocol.MethodWorkspaceApplyEdit {
			t.Errorf("applyEdit for a path outside the workspace: %s", m.Params)
		}
	}
}

func isMethod(method string) func(lsptest.Message) bool {
	return func(m lsptest.Message) bool { return m.Method == method }
}

func isEvent(typ string) func(lsptest.Message) bool {
	return func(m lsptest.Message) bool {
		return m.Method == contract.MethodEvent && strings.Contains(string(m.Params), `"type":"`+typ+`"`)
	}
}

// lastFunctionResponse returns the JSON of the function responses the model
// received last in req.
func lastFunctionResponse(t *testing.T, req geminitest.Request) string {
	t.Helper()
	last := req.Contents[len(req.Contents)-1]
	var out []string
	for _, p := range last.Parts {
		if p.FunctionResponse != nil {
			b, _ := json.Marshal(p.FunctionResponse.Response)
			out = append(out, string(b))
		}
	}
	if len(out) == 0 {
		t.Fatalf("the last content has no function response")
	}
	return strings.Join(out, "\n")
}

// applyUTF16 applies LSP edits with UTF-16 positions, independently of the
// edits package: each line is converted to UTF-16 code units.
func applyUTF16(t *testing.T, text string, tes []protocol.TextEdit) string {
	t.Helper()
	offset := func(p protocol.Position) int {
		lines := strings.SplitAfter(text, "\n")
		off := 0
		for i := 0; i < int(p.Line); i++ {
			off += len(lines[i])
		}
		line := []rune(strings.TrimSuffix(lines[p.Line], "\n"))
		units := 0
		for i, r := range line {
			if units == int(p.Character) {
				return off + len(string(line[:i]))
			}
			units += len(utf16.Encode([]rune{r}))
		}
		if units == int(p.Character) {
			return off + len(string(line))
		}
		t.Fatalf("position %v is not on a character boundary", p)
		return 0
	}
	// Apply from the end so earlier offsets stay valid.
	out := text
	for i := len(tes) - 1; i >= 0; i-- {
		s, e := offset(tes[i].Range.Start), offset(tes[i].Range.End)
		out = out[:s] + tes[i].NewText + out[e:]
	}
	return out
}

func asRPC(err error, target **jsonrpc2.Error) bool {
	if err == nil {
		return false
	}
	e, ok := err.(*jsonrpc2.Error)
	if ok {
		*target = e
	}
	return ok
}

// A run's first request carries the project's context files and its custom
// agents as tools.
func TestContextFilesAndCustomAgents(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newSession(t, geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "ok"})))
	write := func(path, text string) {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(s.userDir, "AGENTS.md"), "Answer in English.\n")
	write(filepath.Join(s.root, "AGENTS.md"), "Use tabs.\n")
	write(filepath.Join(s.root, "svc", "AGENTS.md"), "The svc package is generated.\n")
	write(filepath.Join(s.root, ".agentls", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review.\n")
	write(filepath.Join(s.root, "svc", "a.go"), "package svc\n")
	s.ed.Initialize(ctx, s.root, nil, nil)
	if _, err := s.ed.Run(ctx, map[string]any{"prompt": "hi", "uri": workspace.URIFromPath(filepath.Join(s.root, "svc", "a.go"))}); err != nil {
		t.Fatal(err)
	}
	s.ed.ProgressEnd()
	req := s.gem.Requests()[0]
	sys := req.SystemInstruction.Parts[0].Text
	for _, want := range []string{"Answer in English.", "<context file=\"AGENTS.md\">\nUse tabs.", "<context file=\"svc/AGENTS.md\">", "Workspace folders: "} {
		if !strings.Contains(sys, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	var names []string
	for _, d := range req.Tools[0].FunctionDeclarations {
		names = append(names, d.Name)
	}
	if !slices.Contains(names, "reviewer") || !slices.Contains(names, "codebase_investigator") {
		t.Errorf("declared tools %v lack the subagents", names)
	}
}
