package acp_test

import (
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	acpsdk "github.com/coder/acp-go-sdk"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/contract"
)

func done(result string) geminitest.Turn {
	return geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": result}))
}

// A new session offers the modes both ways, and the model as a config
// option of category model, every option with its current value.
func TestNewSessionState(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, nil)
	resp := h.newSession()
	if resp.Modes == nil || resp.Modes.CurrentModeId != "default" || len(resp.Modes.AvailableModes) != 3 {
		t.Fatalf("modes %+v", resp.Modes)
	}
	var got []string
	for _, o := range resp.ConfigOptions {
		s := o.Select
		var values []string
		for _, v := range *s.Options.Ungrouped {
			values = append(values, string(v.Value))
		}
		got = append(got, string(s.Id)+" "+string(*s.Category)+" "+string(s.CurrentValue)+" ["+strings.Join(values, " ")+"]")
	}
	want := []string{
		"mode mode default [default autoEdit plan]",
		"model model gemini-test [auto gemini-flash-latest gemini-pro-latest gemini-flash-lite-latest gemini-test]",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("config options (-want +got):\n%s", diff)
	}
}

// The model option chooses the next turns' model; plan mode takes the edit
// and shell tools away from them.
func TestConfigOptions(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{done("ok")})
	sid := h.newSession().SessionId
	resp, err := h.conn.SetSessionConfigOption(t.Context(), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "model", Value: "gemini-pro-latest"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.ConfigOptions[1].Select.CurrentValue; got != "gemini-pro-latest" {
		t.Errorf("the answer says the model is %q", got)
	}
	resp, err = h.conn.SetSessionConfigOption(t.Context(), acpsdk.SetSessionConfigOptionRequest{ValueId: &acpsdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "mode", Value: "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.ConfigOptions[0].Select.CurrentValue; got != "plan" {
		t.Errorf("the answer says the mode is %q", got)
	}
	if _, err := h.prompt(sid, "Look around"); err != nil {
		t.Fatal(err)
	}
	req := h.gem.Requests()[0]
	if req.Model != "gemini-pro-latest" {
		t.Errorf("the turn used model %q", req.Model)
	}
	var tools []string
	for _, tl := range req.Tools {
		for _, d := range tl.FunctionDeclarations {
			tools = append(tools, d.Name)
		}
	}
	for _, name := range []string{"replace", "write_file", "run_shell_command"} {
		if slices.Contains(tools, name) {
			t.Errorf("plan mode offers %s (tools %v)", name, tools)
		}
	}
	if !slices.Contains(tools, "read_file") {
		t.Errorf("plan mode offers no read_file (tools %v)", tools)
	}
	if !strings.Contains(string(req.Body), "This session is in plan mode") {
		t.Error("the model is not told the session is in plan mode")
	}
	updates, _, _ := h.client.snapshot()
	if !contains(transcript(updates), "mode: plan") {
		t.Error("the mode change was not told as a current_mode_update")
	}
}

// session/set_mode, the older way, sets the same mode and keeps the
// config options in step.
func TestSetMode(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("c1", "write_file", map[string]any{"file_path": "a.txt", "content": "a\n"})),
		done("Wrote it."),
	}
	h := start(t, clientFS, nil, turns)
	sid := h.newSession().SessionId
	if _, err := h.conn.SetSessionMode(t.Context(), acpsdk.SetSessionModeRequest{SessionId: sid, ModeId: "autoEdit"}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(sid, "Write a.txt"); err != nil {
		t.Fatal(err)
	}
	updates, asked, writes := h.client.snapshot()
	if len(asked) != 0 || len(writes) != 1 {
		t.Errorf("auto edit asked %d times and wrote %d files; want no question, one write", len(asked), len(writes))
	}
	tr := transcript(updates)
	if !contains(tr, "config_options") || !contains(tr, "tool_call_update c1 diff(a.txt)") {
		t.Errorf("updates:\n%s", joinLines(tr))
	}
	if !strings.Contains(string(h.gem.Requests()[0].Body), "each change you make is written at once") {
		t.Error("the model is not told its changes are written at once")
	}
}

// How runs end, as stop reasons.
func TestStopReasons(t *testing.T) {
	t.Parallel()
	read := geminitest.Reply(geminitest.Call("read_file", map[string]any{"file_path": "a.txt"}))
	for _, tc := range []struct {
		name     string
		turns    []geminitest.Turn
		settings func(*contract.Settings)
		want     acpsdk.StopReason
		say      string // in the last message
		err      string // a JSON-RPC error instead
	}{
		{name: "goal", turns: []geminitest.Turn{done("All done.")}, want: acpsdk.StopReasonEndTurn, say: "All done."},
		{name: "turn limit", turns: []geminitest.Turn{read, read, read}, settings: func(s *contract.Settings) { s.MaxTurns = 1 },
			want: acpsdk.StopReasonMaxTurnRequests, say: "the turn limit"},
		{name: "blocked prompt", turns: []geminitest.Turn{geminitest.Blocked("PROHIBITED_CONTENT", "")}, want: acpsdk.StopReasonRefusal,
			say: "blocked by the model's filters"},
		{name: "API error", turns: []geminitest.Turn{{Status: 403, ErrMessage: "API key not valid"}}, err: "API key not valid"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var opts []option
			if tc.settings != nil {
				opts = append(opts, withSettings(tc.settings))
			}
			h := start(t, clientFS, map[string]string{"a.txt": "a\n"}, tc.turns, opts...)
			sid := h.newSession().SessionId
			resp, err := h.prompt(sid, "Go")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Errorf("answer %+v, %v; want an error with %q", resp, err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.StopReason != tc.want {
				t.Errorf("stop reason %q, want %q", resp.StopReason, tc.want)
			}
			updates, _, _ := h.client.snapshot()
			msgs := without(without(transcript(updates), "usage"), "title: ")
			if last := msgs[len(msgs)-1]; !strings.HasPrefix(last, "message: ") || !strings.Contains(last, tc.say) {
				t.Errorf("last update %q, want a message with %q", last, tc.say)
			}
		})
	}
}

// write_todos shows the plan; a cancelled step says so.
func TestPlan(t *testing.T) {
	t.Parallel()
	turns := []geminitest.Turn{
		geminitest.Reply(geminitest.CallID("p1", "write_todos", map[string]any{"todos": []map[string]any{
			{"description": "Read the code", "status": "completed"},
			{"description": "Fix the bug", "status": "in_progress"},
			{"description": "Refactor", "status": "cancelled"},
			{"description": "Test", "status": "pending"},
		}})),
		done("Planned."),
	}
	h := start(t, clientFS, nil, turns)
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Plan"); err != nil {
		t.Fatal(err)
	}
	updates, _, _ := h.client.snapshot()
	want := "plan: completed:Read the code, in_progress:Fix the bug, completed:Refactor (cancelled), pending:Test"
	if tr := transcript(updates); !contains(tr, want) {
		t.Errorf("no %q in:\n%s", want, joinLines(tr))
	}
}

// A prompt's embedded file reaches the model with its content, named as
// the workspace names it; a link is named.
func TestPromptContent(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{done("ok")})
	sid := h.newSession().SessionId
	file := (&url.URL{Scheme: "file", Path: filepath.Join(h.dir, "src", "main.go")}).String()
	other := (&url.URL{Scheme: "file", Path: filepath.Join(h.dir, "README.md")}).String()
	_, err := h.conn.Prompt(t.Context(), acpsdk.PromptRequest{SessionId: sid, Prompt: []acpsdk.ContentBlock{
		acpsdk.TextBlock("Explain"),
		acpsdk.ResourceBlock(acpsdk.EmbeddedResourceResource{TextResourceContents: &acpsdk.TextResourceContents{Uri: file, Text: "package main // unsaved"}}),
		acpsdk.TextBlock("and compare with"),
		acpsdk.ResourceLinkBlock("README.md", other),
	}})
	if err != nil {
		t.Fatal(err)
	}
	body := string(h.gem.Requests()[0].Body)
	for _, s := range []string{"Explain @src/main.go and compare with @README.md", `Content of @src/main.go:\npackage main // unsaved`} {
		if !strings.Contains(body, s) {
			t.Errorf("the model was not sent %q:\n%s", s, body)
		}
	}
}

// What is wrong with the settings is told on the session's first turn,
// once; so is a client's MCP server that does not start.
func TestNotices(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, []geminitest.Turn{done("one"), done("two")}, func(c *harnessConfig) {
		c.problems = []string{`unknown setting "colour"`}
	})
	resp, err := h.conn.NewSession(t.Context(), acpsdk.NewSessionRequest{Cwd: h.dir, McpServers: []acpsdk.McpServer{
		{Stdio: &acpsdk.McpServerStdio{Name: "fs", Command: "/bin/true", Args: []string{}, Env: []acpsdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := h.prompt(resp.SessionId, "Go"); err != nil {
			t.Fatal(err)
		}
	}
	updates, _, _ := h.client.snapshot()
	var notices []string
	for _, l := range transcript(updates) {
		if strings.HasPrefix(l, "message: agentls:") {
			l, _, _ = strings.Cut(l, ":  ")
			notices = append(notices, firstLine(l))
		}
	}
	want := []string{
		`message: agentls: settings: unknown setting "colour"`,
		`message: agentls: MCP server "fs" did not start: connection closed: calling "initialize": client is closing: write |1: broken pipe; the run goes on without its tools`,
	}
	if len(notices) != 2 || notices[0] != want[0] || !strings.HasPrefix(notices[1], `message: agentls: MCP server "fs" did not start`) {
		t.Errorf("notices:\n%s\nwant:\n%s", joinLines(notices), joinLines(want))
	}
}

// A closed session is gone.
func TestCloseSession(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, nil, nil)
	sid := h.newSession().SessionId
	if _, err := h.conn.CloseSession(t.Context(), acpsdk.CloseSessionRequest{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.prompt(sid, "Hello?"); err == nil || !strings.Contains(err.Error(), "unknown session") {
		t.Errorf("a prompt to a closed session: %v", err)
	}
}

// A folder whose own configuration is not trusted says what it would
// switch on, and how to trust it, on the first turn.
func TestUntrustedFolder(t *testing.T) {
	t.Parallel()
	h := start(t, clientFS, map[string]string{".agentls/policy.toml": "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"make\"\ndecision = \"allow\"\n"},
		[]geminitest.Turn{done("ok")})
	sid := h.newSession().SessionId
	if _, err := h.prompt(sid, "Go"); err != nil {
		t.Fatal(err)
	}
	updates, _, _ := h.client.snapshot()
	tr := transcript(updates)
	if len(tr) == 0 || !strings.Contains(tr[0], "is not in force: you have not trusted it as it is; it would allow without asking") || !strings.Contains(tr[0], "agentls trust --workspace "+h.dir) {
		t.Errorf("first update %q", tr[0])
	}
}

// usage_update tells the session's cost so far, and a run that spends its
// budget (maxBudget) ends max_tokens, with its last answer and what it
// spent.
func TestCostAndBudget(t *testing.T) {
	t.Parallel()
	costly := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CandidatesTokenCount: 100, TotalTokenCount: 1100}
	c1 := geminitest.Call("read_file", map[string]any{"file_path": "a.txt"})
	c1.Usage = costly // $0.001 + $0.001 at $1 and $10 a million tokens
	c2 := geminitest.Call("complete_task", map[string]any{"result": "What I have so far."})
	c2.Usage = costly
	h := start(t, clientFS, map[string]string{"a.txt": "a\n"}, []geminitest.Turn{geminitest.Reply(c1), geminitest.Reply(c2)}, withSettings(func(s *contract.Settings) {
		s.Prices = map[string]agent.Price{"gemini-test": {Input: 1, Output: 10}}
		s.MaxBudget = 0.001
	}))
	sid := h.newSession().SessionId
	resp, err := h.prompt(sid, "Go")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StopReason != acpsdk.StopReasonMaxTokens {
		t.Errorf("stop reason %q, want max_tokens", resp.StopReason)
	}
	updates, _, _ := h.client.snapshot()
	var costs []float64
	for _, u := range updates {
		if u.UsageUpdate != nil && u.UsageUpdate.Cost != nil {
			costs = append(costs, u.UsageUpdate.Cost.Amount)
		}
	}
	if len(costs) != 2 || costs[0] < 0.0019 || costs[0] > 0.0021 || costs[1] < 0.0039 || costs[1] > 0.0041 {
		t.Errorf("costs told %v, want about $0.002 then $0.004", costs)
	}
	msgs := without(without(transcript(updates), "usage"), "title: ")
	if n := len(msgs); n < 2 || !strings.Contains(msgs[n-2], "What I have so far.") || !strings.Contains(msgs[n-1], "more than the run's budget") {
		t.Errorf("the last messages:\n%s", joinLines(msgs))
	}
}
