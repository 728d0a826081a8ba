package trace_test

import (
	"bytes"
	"context"
	"encoding/json"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/trace"
)

// A run that fails in the middle of a tool call leaves a trace that can be
// read at every point: while the tool runs (as a crash would leave it) and
// after the run stopped.
func TestTraceOfARunThatFailsMidTool(t *testing.T) {
	t.Parallel()
	started, release := make(chan struct{}), make(chan struct{})
	blocker := agent.NewFunc("blocker", "Block.", func(ctx context.Context, c *agent.Call, a struct {
		N int `json:"n"`
	}) (agent.Result, error) {
		close(started)
		<-release
		return agent.Result{}, errFire
	})
	m := &script{turns: []*genai.GenerateContentResponse{answer(thought("**Blocking**\n\nnow"), call("blocker", map[string]any{"n": 1}))}}
	cfg := agent.Config{Model: m, Tools: []agent.Tool{blocker}, Context: []agent.ContextFile{{Path: "AGENTS.md", Content: "Be brief."}}}

	path := filepath.Join(t.TempDir(), "run.jsonl")
	w, err := trace.Create(path, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	finished := make(chan []agent.Event)
	go func() {
		var evs []agent.Event
		for ev := range w.Run(context.Background(), cfg, agent.Task{Prompt: "block"}, trace.Header{Workspace: "/ws", Model: "m1", Version: "test"}) {
			evs = append(evs, ev)
		}
		finished <- evs
	}()

	<-started // the tool runs: what is on disk now is what a crash would leave
	mid := load(t, path)
	if mid.Torn || len(mid.Calls) != 1 || mid.End() != nil {
		t.Fatalf("mid-tool trace: torn %v, %d model calls, end %v", mid.Torn, len(mid.Calls), mid.End())
	}
	if got := types(mid.Events); !cmp.Equal(got, []string{"run_start", "turn_start", "tool_call"}) {
		t.Errorf("mid-tool events = %v", got)
	}
	if len(mid.Policy) != 1 || mid.Policy[0].CallID != mid.Events[2].Call.ID || mid.Policy[0].Verdict != agent.VerdictAllow {
		t.Errorf("policy records = %+v", mid.Policy)
	}
	close(release)
	evs := <-finished

	tr := load(t, path)
	h := tr.Header
	if h.Task.Prompt != "block" || h.Model != "m1" || h.Version != "test" || h.RunID != evs[0].RunID ||
		!cmp.Equal(h.Tools, []string{"blocker", "complete_task"}) || len(h.Context) != 1 || h.Context[0].Bytes != 9 {
		t.Errorf("header = %+v", h)
	}
	c := tr.Calls[0]
	if c.PromptID != h.RunID+"#1" || c.RunID != h.RunID || c.Seq != 1 || !cmp.Equal(c.Asked, []string{"user"}) ||
		c.Usage == nil || c.Usage.Prompt != 100 || len(c.Chunks) != 1 {
		t.Errorf("model call = %+v", c)
	}
	if !cmp.Equal(c.Context.Files, []string{"AGENTS.md"}) || c.Context.Contents != 1 || c.Context.Tools != 2 || c.Context.Tokens == 0 {
		t.Errorf("model call context = %+v", c.Context)
	}
	if got := types(tr.Events); !cmp.Equal(got, []string{"run_start", "turn_start", "tool_call", "tool_result", "turn_end", "run_end"}) {
		t.Errorf("events = %v", got)
	}
	res := tr.Events[3].Result
	if !res.IsError || !strings.Contains(res.Output, "disk on fire") {
		t.Errorf("tool result = %+v", res)
	}
	end := tr.End()
	if end == nil || end.End.Reason != agent.StopError || !strings.Contains(end.End.Error, "disk on fire") {
		t.Errorf("run end = %+v", end)
	}
	s := trace.Summarize(tr)
	if s.Stop != agent.StopError || len(s.Tools) != 1 || !s.Tools[0].Done || !s.Tools[0].IsError || s.Tools[0].Verdict != agent.VerdictAllow || s.Usage.Prompt != 100 {
		t.Errorf("summary = %+v", s)
	}
}

// A trace cut in the middle of a line is read up to that line.
func TestTornTrace(t *testing.T) {
	t.Parallel()
	m := &script{turns: []*genai.GenerateContentResponse{answer(done("ok"))}}
	path, _ := record(t, agent.Config{Model: m}, agent.Task{Prompt: "go"}, trace.Options{})
	b, _ := os.ReadFile(path)
	cut := b[:len(b)-20]
	tr, err := trace.Read(bytes.NewReader(cut))
	if err != nil {
		t.Fatal(err)
	}
	if !tr.Torn || tr.End() != nil || len(tr.Calls) != 1 {
		t.Errorf("torn %v, end %v, %d calls", tr.Torn, tr.End(), len(tr.Calls))
	}
	if _, err := trace.Read(strings.NewReader("{}\n")); err == nil {
		t.Error("a file without a header read as a trace")
	}
}

// Secret values never reach a trace, wherever they appear: the task, the
// model's answers, tool arguments and results, errors. HTTP headers are
// never written.
func TestRedaction(t *testing.T) {
	t.Parallel()
	const apiKey = "AIzaSyFAKE-model-key-0123456789"
	environ := []string{
		"MY_SERVICE_TOKEN=tok_live_abcdef123456",
		"DB_PASSWORD=correct horse battery",
		"GOOGLE_APPLICATION_CREDENTIALS=/home/u/creds.json",
		"AWS_SECRET=quote\"and<angle>",
		"PATH=/usr/bin:/bin",
		"SHORT_KEY=abc",
		"DATABASE_URL=postgres://app:pg-pass-123@db:5432/app",
		"HTTPS_PROXY=http://me:proxy%40pass@proxy:3128",
	}
	secrets := append(trace.SecretValues(environ), apiKey)
	if got := trace.SecretValues(environ); len(got) != 9 {
		t.Errorf("secret values = %q", got)
	}
	// The DATABASE_URL's password alone, as a config file would hold it.
	leak := strings.Join([]string{"tok_live_abcdef123456", "correct horse battery", "/home/u/creds.json", "quote\"and<angle>", apiKey,
		"password: pg-pass-123", "proxy@pass"}, " ")
	echo := agent.NewFunc("echo", "Echo.", func(ctx context.Context, c *agent.Call, a struct {
		Text string `json:"text"`
	}) (agent.Result, error) {
		return agent.Result{Output: "echo: " + a.Text + " " + leak}, nil
	})
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Thought("**Thinking** about "+apiKey), geminitest.Text("the key is "+apiKey),
			geminitest.Call("echo", map[string]any{"text": leak})),
		geminitest.Reply(geminitest.Call(agent.CompleteTaskName, map[string]any{"result": "done with " + leak})))
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: apiKey, BaseURL: srv.URL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	path, evs := record(t, agent.Config{Model: m, Tools: []agent.Tool{echo}}, agent.Task{Prompt: "use " + leak}, trace.Options{Secrets: secrets})
	if endOf(evs).Reason != agent.StopGoal {
		t.Fatalf("run end = %+v", endOf(evs))
	}
	b, _ := os.ReadFile(path)
	text := string(b)
	for _, s := range append(secrets, `quote\"and\u003cangle\u003e`) {
		if strings.Contains(text, s) {
			t.Errorf("the trace holds %q", s)
		}
	}
	if n := strings.Count(text, trace.Redacted); n < 10 {
		t.Errorf("%d redactions", n)
	}
	for _, h := range []string{"sdkHttpResponse", "X-Goog-Api-Key", "x-goog-api-key", "Content-Type"} {
		if strings.Contains(text, h) {
			t.Errorf("the trace holds %q", h)
		}
	}
	for i, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("line %d is not JSON: %s", i+1, line)
		}
	}
}

func TestDirAndPath(t *testing.T) {
	t.Parallel()
	env := func(kv ...string) func(string) string {
		m := map[string]string{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return func(k string) string { return m[k] }
	}
	tests := []struct {
		env     func(string) string
		want    string
		wantErr bool
	}{
		{env("XDG_STATE_HOME", "/s", "HOME", "/h"), "/s/agentls/runs", false},
		{env("HOME", "/h"), "/h/.local/state/agentls/runs", false},
		{env(trace.EnvDir, "/t", "HOME", "/h"), "/t", false},
		{env(trace.EnvDir, "off", "HOME", "/h"), "", false},
		{env(), "", true},
	}
	for _, tt := range tests {
		got, err := trace.Dir(tt.env)
		if got != tt.want || (err != nil) != tt.wantErr {
			t.Errorf("Dir = %q, %v; want %q", got, err, tt.want)
		}
	}
	p := trace.Path("/s", "/work/ws", "main-1")
	if filepath.Dir(filepath.Dir(p)) != "/s" || filepath.Base(p) != "main-1.jsonl" || strings.Contains(p, "work") {
		t.Errorf("Path = %s", p)
	}
	if trace.Path("/s", "/work/ws", "x") == trace.Path("/s", "/work/other", "x") {
		t.Error("two workspaces share a folder")
	}
}

func types(evs []agent.Event) []string {
	var out []string
	for _, ev := range evs {
		out = append(out, string(ev.Type))
	}
	return out
}

// flaky is a model layer that reports a retry, as agent.WithRetry does,
// before the answer.
type flaky struct{ next agent.Model }

func (f flaky) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	req.Events(agent.Event{Type: agent.EventRetry, Retry: &agent.RetryInfo{Attempt: 1, Delay: time.Second, Error: "503 unavailable"}})
	return f.next.Generate(ctx, req)
}

// A model call's record holds the retries of the layers below the trace.
func TestTraceRecordsRetries(t *testing.T) {
	t.Parallel()
	m := flaky{&script{turns: []*genai.GenerateContentResponse{answer(done("ok"))}}}
	path, evs := record(t, agent.Config{Model: m}, agent.Task{Prompt: "go"}, trace.Options{})
	if len(ofType(evs, agent.EventRetry)) != 1 {
		t.Errorf("the retry did not reach the stream: %v", types(evs))
	}
	tr := load(t, path)
	if len(tr.Calls) != 1 || len(tr.Calls[0].Retries) != 1 || tr.Calls[0].Retries[0].Error != "503 unavailable" {
		t.Fatalf("calls = %+v", tr.Calls)
	}
	if s := trace.Summarize(tr); s.Retries != 1 || s.Stop != agent.StopGoal {
		t.Errorf("summary: %d retries, stop %s", s.Retries, s.Stop)
	}
	// The replay reports the recorded retry again.
	rp := trace.NewReplay(tr)
	if got := ofType(drain(t, agent.Run(t.Context(), rp.Config(), rp.Task())), agent.EventRetry); len(got) != 1 {
		t.Errorf("replayed retries: %d", len(got))
	}
}

// What did the model see for this call? Each model call records the
// context files in its system prompt and the remembered facts they hold,
// and the skills whose instructions its history holds (an activation that
// failed puts none there).
func TestCallContext(t *testing.T) {
	t.Parallel()
	activate := agent.NewFunc("activate_skill", "Activate.", func(ctx context.Context, c *agent.Call, a struct {
		Name string `json:"name"`
	}) (agent.Result, error) {
		if a.Name != "release" {
			return agent.Errorf("no skill %s", a.Name), nil
		}
		return agent.Result{Output: "<activated_skill>"}, nil
	})
	m := &script{turns: []*genai.GenerateContentResponse{
		answer(call("activate_skill", map[string]any{"name": "missing"}), call("activate_skill", map[string]any{"name": "release"})),
		answer(done("ok")),
	}}
	memories := "# Rules\n\n## Remembered facts\n\n- The user likes tabs.\n- CI runs on Debian.\n"
	cfg := agent.Config{Model: m, Tools: []agent.Tool{activate},
		Context: []agent.ContextFile{{Path: "/home/u/.config/agentls/AGENTS.md", Content: memories}, {Path: "AGENTS.md", Content: "Be brief."}}}
	path, _ := record(t, cfg, agent.Task{Prompt: "release it"}, trace.Options{})
	tr := load(t, path)
	if h := tr.Header.Context; len(h) != 2 || h[0].Memories != 2 || h[1].Memories != 0 {
		t.Errorf("header context = %+v", h)
	}
	files := []string{"/home/u/.config/agentls/AGENTS.md", "AGENTS.md"}
	want := []trace.CallContext{
		{Files: files, Memories: 2, Contents: 1, Turns: 0, Tools: 2},
		{Files: files, Memories: 2, Skills: []string{"release"}, Contents: 3, Turns: 1, Tools: 2},
	}
	var got []trace.CallContext
	for _, c := range tr.Calls {
		c.Context.Tokens = 0
		got = append(got, c.Context)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("call contexts (-want +got):\n%s", diff)
	}
}
