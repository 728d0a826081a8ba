package agent_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// Signatures that are not text: they must come back byte for byte.
var (
	sigA = []byte{0xff, 0x00, 0x7f, 0x80, 'a', 0x0a}
	sigB = []byte{0x01, 0xfe, 0x00, 'b'}
)

// wantPart is a part of a request as the test expects it.
type wantPart struct {
	Text     string
	Call     string // function call name
	CallID   string
	Resp     string // function response name
	RespID   string
	Sig      []byte
	Response string // a part of the response's JSON
}

// partsOf describes c's parts for comparison.
func partsOf(c *genai.Content) []wantPart {
	var out []wantPart
	for _, p := range c.Parts {
		w := wantPart{Text: p.Text, Sig: p.ThoughtSignature}
		if fc := p.FunctionCall; fc != nil {
			w.Call, w.CallID = fc.Name, fc.ID
		}
		if fr := p.FunctionResponse; fr != nil {
			w.Resp, w.RespID = fr.Name, fr.ID
		}
		out = append(out, w)
	}
	return out
}

// TestAnswerShapes scripts each shape the real API sends as a turn of the
// fake server, through the real SDK, and checks what agentls sends next:
// the model's turn as history (ids echoed only when given, signatures byte
// for byte on the same part, no part without data, no thought) and the
// tool responses.
func TestAnswerShapes(t *testing.T) {
	t.Parallel()
	signed := func(c geminitest.Chunk, sig []byte) geminitest.Chunk {
		c.ThoughtSignature = sig
		return c
	}
	echo := func(text string) *genai.FunctionCall {
		return &genai.FunctionCall{Name: "echo", Args: map[string]any{"text": text}}
	}
	echoID := func(id, text string) *genai.FunctionCall {
		fc := echo(text)
		fc.ID = id
		return fc
	}
	tests := []struct {
		name      string
		turn      geminitest.Turn
		wantModel []wantPart // the model's turn in the next request
		wantUser  []wantPart // the user's turn after it (tool responses)
	}{
		{
			name:      "a call without id",
			turn:      geminitest.Reply(signed(geminitest.Call("echo", map[string]any{"text": "x"}), sigA)),
			wantModel: []wantPart{{Call: "echo", Sig: sigA}},
			wantUser:  []wantPart{{Resp: "echo"}},
		},
		{
			name:      "a call with an id",
			turn:      geminitest.Reply(signed(geminitest.CallID("call_7", "echo", map[string]any{"text": "x"}), sigA)),
			wantModel: []wantPart{{Call: "echo", CallID: "call_7", Sig: sigA}},
			wantUser:  []wantPart{{Resp: "echo", RespID: "call_7"}},
		},
		{
			name: "parallel calls, only the first signed",
			turn: geminitest.Reply(geminitest.Parts(
				geminitest.Part{Call: echo("1"), Signature: sigA},
				geminitest.Part{Call: echo("2")},
				geminitest.Part{Call: echo("3")},
			)),
			wantModel: []wantPart{{Call: "echo", Sig: sigA}, {Call: "echo"}, {Call: "echo"}},
			wantUser:  []wantPart{{Resp: "echo"}, {Resp: "echo"}, {Resp: "echo"}},
		},
		{
			name: "parallel calls with ids",
			turn: geminitest.Reply(geminitest.Parts(
				geminitest.Part{Call: echoID("a1", "1"), Signature: sigA},
				geminitest.Part{Call: echoID("a2", "2")},
			)),
			wantModel: []wantPart{{Call: "echo", CallID: "a1", Sig: sigA}, {Call: "echo", CallID: "a2"}},
			wantUser:  []wantPart{{Resp: "echo", RespID: "a1"}, {Resp: "echo", RespID: "a2"}},
		},
		{
			name: "calls split across chunks, mixed with text",
			turn: geminitest.Reply(
				geminitest.Thought("**Reading**\n\nTwo calls."),
				geminitest.Text("I will echo "),
				geminitest.Text("twice."),
				signed(geminitest.Call("echo", map[string]any{"text": "1"}), sigA),
				geminitest.Text("And again."),
				geminitest.Call("echo", map[string]any{"text": "2"}),
			),
			wantModel: []wantPart{{Text: "I will echo twice."}, {Call: "echo", Sig: sigA}, {Text: "And again."}, {Call: "echo"}},
			wantUser:  []wantPart{{Resp: "echo"}, {Resp: "echo"}},
		},
		{
			name: "a signed thought before an unsigned call",
			turn: geminitest.Reply(
				geminitest.Parts(geminitest.Part{Text: "**Thinking**\n\nEcho it.", Thought: true, Signature: sigB}),
				geminitest.Call("echo", map[string]any{"text": "1"}),
			),
			wantModel: []wantPart{{Call: "echo"}},
			wantUser:  []wantPart{{Resp: "echo"}},
		},
		{
			name: "a signature-only part after the calls",
			turn: geminitest.Reply(
				signed(geminitest.Call("echo", map[string]any{"text": "1"}), sigA),
				geminitest.SignatureOnly(string(sigB)),
			),
			wantModel: []wantPart{{Call: "echo", Sig: sigA}},
			wantUser:  []wantPart{{Resp: "echo"}},
		},
		{
			name: "a text answer ending with a signature-only part",
			turn: geminitest.Reply(
				geminitest.Text("All done."),
				geminitest.SignatureOnly(string(sigB)),
			),
			// No call: the recovery turn follows, after this turn.
			wantModel: []wantPart{{Text: "All done."}},
			wantUser:  []wantPart{{Text: "You have stopped before finishing"}},
		},
		{
			name: "a signed text part",
			turn: geminitest.Reply(
				signed(geminitest.Text("Echoing."), sigB),
				geminitest.Call("echo", map[string]any{"text": "1"}),
			),
			wantModel: []wantPart{{Text: "Echoing.", Sig: sigB}, {Call: "echo"}},
			wantUser:  []wantPart{{Resp: "echo"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fake(t, tt.turn, geminitest.Reply(complete("done")))
			evs := collect(t, t.Context(), agent.Config{Model: m, Tools: []agent.Tool{echoTool()}}, agent.Task{Prompt: "go"})
			if got := end(evs); got.Reason != agent.StopGoal || got.Result != "done" {
				t.Fatalf("run end = %+v, want goal", got)
			}
			reqs := srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("requests = %d, want 2", len(reqs))
			}
			next := reqs[1].Contents
			if len(next) != 3 {
				t.Fatalf("the second request has %d contents, want the task, the model's turn, the answer", len(next))
			}
			model, user := next[1], next[2]
			if model.Role != genai.RoleModel || user.Role != genai.RoleUser {
				t.Fatalf("roles %q, %q", model.Role, user.Role)
			}
			if diff := cmp.Diff(tt.wantModel, partsOf(model)); diff != "" {
				t.Errorf("the model's turn sent back (-want +got):\n%s", diff)
			}
			got := partsOf(user)
			for i := range got {
				if i < len(tt.wantUser) && tt.wantUser[i].Text != "" && strings.HasPrefix(got[i].Text, tt.wantUser[i].Text) {
					got[i].Text = tt.wantUser[i].Text
				}
			}
			if diff := cmp.Diff(tt.wantUser, got); diff != "" {
				t.Errorf("the answer (-want +got):\n%s", diff)
			}
			noDatalessParts(t, reqs)
			// The wire: an id appears only where the API gave one.
			if !strings.Contains(tt.name, "id") && strings.Contains(string(reqs[1].Body), `"id":`) {
				t.Errorf("an id was sent that the API never gave:\n%s", reqs[1].Body)
			}
		})
	}
}

// TestRetriedAnswerNotDuplicated: an answer whose stream fails after a
// call chunk is asked again; the history holds the second answer once, and
// the call of the first never ran.
func TestRetriedAnswerNotDuplicated(t *testing.T) {
	t.Parallel()
	first := geminitest.Call("echo", map[string]any{"text": "first"})
	first.ThoughtSignature = sigB
	second := geminitest.Call("echo", map[string]any{"text": "second"})
	second.ThoughtSignature = sigA
	srv, m := fake(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("Echoing."), first}, CutAfter: 2},
		geminitest.Reply(geminitest.Text("Echoing."), second),
		geminitest.Reply(complete("done")),
	)
	var sl sleeper
	var ran []string
	echo := agent.NewFunc("echo", "Echo.", func(ctx context.Context, call *agent.Call, a echoArgs) (agent.Result, error) {
		ran = append(ran, a.Text)
		return agent.Result{Output: a.Text}, nil
	})
	evs := collect(t, t.Context(), agent.Config{Model: agent.WithRetry(m, agent.RetryOptions{Sleep: sl.Sleep}), Tools: []agent.Tool{echo}}, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal {
		t.Fatalf("run end = %+v", got)
	}
	if diff := cmp.Diff([]string{"second"}, ran); diff != "" {
		t.Errorf("tool calls run (-want +got):\n%s", diff)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("requests = %d, want 3", len(reqs))
	}
	if diff := cmp.Diff(reqs[0].Body, reqs[1].Body); diff != "" {
		t.Errorf("the retried request differs from the first (-first +retry):\n%s", diff)
	}
	want := []wantPart{{Text: "Echoing."}, {Call: "echo", Sig: sigA}}
	if diff := cmp.Diff(want, partsOf(reqs[2].Contents[1])); diff != "" {
		t.Errorf("the model's turn in history (-want +got):\n%s", diff)
	}
	if n := len(reqs[2].Contents); n != 3 {
		t.Errorf("history has %d contents, want 3", n)
	}
	var texts, discards int
	for _, ev := range evs {
		switch {
		case ev.Type == agent.EventText:
			texts++
		case ev.Type == agent.EventRetry && ev.Retry.Discard:
			discards++
		}
	}
	if texts != 2 || discards != 1 {
		t.Errorf("text events %d, retries with discard %d; want 2 and 1 (the voided text, the retry that voids it, the text again)", texts, discards)
	}
}

// TestUsageShapes: usageMetadata with thoughts, cached and tool-use prompt
// tokens is counted as the API reports it.
func TestUsageShapes(t *testing.T) {
	t.Parallel()
	done := complete("done")
	done.Usage = &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount: 1200, CachedContentTokenCount: 800, CandidatesTokenCount: 30,
		ThoughtsTokenCount: 250, ToolUsePromptTokenCount: 40, TotalTokenCount: 1520,
	}
	_, m := fake(t, geminitest.Reply(done))
	evs := collect(t, t.Context(), agent.Config{Model: m}, agent.Task{Prompt: "go"})
	// The fake answers as the default model, gemini-flash-latest, priced as
	// gemini-3.5-flash: 440 fresh prompt tokens (tool use included) at
	// $1.50/M, 800 cached at $0.15/M, 280 output and thought tokens at
	// $9.00/M: $0.00066 + $0.00012 + $0.00252.
	want := agent.Usage{Prompt: 1200, Output: 30, Thoughts: 250, Cached: 800, ToolUse: 40, Cost: 0.0033}
	var perCall []agent.Usage
	for _, ev := range evs {
		if ev.Type == agent.EventUsage {
			perCall = append(perCall, *ev.Usage)
		}
	}
	if diff := cmp.Diff([]agent.Usage{want}, perCall); diff != "" {
		t.Errorf("usage events (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(&want, evs[len(evs)-1].Usage); diff != "" {
		t.Errorf("run_end usage (-want +got):\n%s", diff)
	}
	b, _ := json.Marshal(want)
	if !strings.Contains(string(b), `"toolUse":40`) {
		t.Errorf("usage JSON %s lacks toolUse", b)
	}
}

// TestFilterMessageReachesUserAndModel: a withheld answer's finishMessage
// is shown to the user (a retry event) and told to the model, verbatim.
func TestFilterMessageReachesUserAndModel(t *testing.T) {
	t.Parallel()
	const msg = "The response was blocked because it may contain recited material."
	srv, m := fake(t, geminitest.Finish(genai.FinishReasonRecitation, msg, geminitest.Text("func main")), geminitest.Reply(complete("done")))
	evs := collect(t, t.Context(), agent.Config{Model: m}, agent.Task{Prompt: "go"})
	var shown string
	for _, ev := range evs {
		if ev.Type == agent.EventRetry {
			shown = ev.Retry.Reason + ": " + ev.Retry.Error
		}
	}
	if !strings.Contains(shown, "answer withheld (RECITATION)") || !strings.Contains(shown, msg) {
		t.Errorf("the user was shown %q, want the reason and the API's message", shown)
	}
	if told := lastUserText(srv.Requests()[1]); !strings.Contains(told, "(RECITATION): "+msg) {
		t.Errorf("the model was told %q, want the API's message", told)
	}
}

// TestBlockedPromptStops: a prompt the API blocks ends the run with the
// API's explanation, and nothing is sent again.
func TestBlockedPromptStops(t *testing.T) {
	t.Parallel()
	srv, m := fake(t, geminitest.Blocked("BLOCKLIST", "The prompt contains blocked terms."), geminitest.Reply(complete("never")))
	var sl sleeper
	evs := collect(t, t.Context(), agent.Config{Model: agent.WithRetry(m, agent.RetryOptions{Sleep: sl.Sleep})}, agent.Task{Prompt: "go"})
	got := end(evs)
	if got.Reason != agent.StopError || !strings.Contains(got.Error, "(BLOCKLIST): The prompt contains blocked terms.") {
		t.Errorf("run end = %+v, want an error with the block reason and its message", got)
	}
	if n := len(srv.Requests()); n != 1 || len(sl.Slept()) != 0 {
		t.Errorf("requests %d, waits %v; want 1 and none", n, sl.Slept())
	}
}

// TestRetryProgressLine: a retry event reads as a progress line.
func TestRetryProgressLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		info agent.RetryInfo
		want string
	}{
		{agent.RetryInfo{Reason: "model overloaded", Delay: 11200 * time.Millisecond}, "model overloaded, retrying in 12 s"},
		{agent.RetryInfo{Reason: "empty answer", Delay: 500 * time.Millisecond}, "empty answer, retrying in 1 s"},
		{agent.RetryInfo{Reason: "answer withheld (SAFETY)"}, "answer withheld (SAFETY), retrying"},
		{agent.RetryInfo{Delay: 2 * time.Second}, "model call failed, retrying in 2 s"},
	} {
		if got := tc.info.Summary(); got != tc.want {
			t.Errorf("Summary(%+v) = %q, want %q", tc.info, got, tc.want)
		}
	}
}
