package geminitest

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestParseScript(t *testing.T) {
	t.Parallel()
	stop := func(c Chunk) Chunk { c.FinishReason = genai.FinishReasonStop; return c }
	auto := func(chunks ...Chunk) Turn { return Turn{Chunks: chunks, autoUsage: true} }
	for _, tc := range []struct {
		name string
		src  string
		want []Turn
	}{
		{"empty", "", nil},
		{"comments only", "# nothing\n\n", nil},
		{"reply", `
# the model thinks, talks and calls
thought Let me look.
text "I will read it.\nNow."
callid call_1 read_file {"path": "a.go"}
signature sig
`, []Turn{auto(
			Thought("Let me look."),
			Text("I will read it.\nNow."),
			stop(Chunk{Call: &genai.FunctionCall{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "a.go"}}, ThoughtSignature: []byte("sig")}),
		)}},
		{"turns", "text  one  \n---\ncall list\n---\r\nerror 429 quota exceeded\nretryafter 7\ndelay 2s", []Turn{
			auto(stop(Text("one"))),
			auto(stop(Call("list", nil))),
			{Status: 429, ErrMessage: "quota exceeded", RetryAfter: "7", Delay: 2 * time.Second},
		}},
		{"finish and usage", "text cut short\nfinish MAX_TOKENS\nusage 10 20 5", []Turn{{Chunks: []Chunk{{
			Text: "cut short", FinishReason: genai.FinishReasonMaxTokens,
			Usage: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 20, ThoughtsTokenCount: 5, TotalTokenCount: 35},
		}}}}},
		{"finish alone", "finish SAFETY", []Turn{{Chunks: []Chunk{{FinishReason: genai.FinishReasonSafety}}, autoUsage: true}}},
		{"faults are not finished", "text a\ntext b\ncut 1\nchunkdelay 5ms\n---\nmalformed\n---\ntext a\nmidstream 503 overloaded", []Turn{
			{Chunks: []Chunk{Text("a"), Text("b")}, CutAfter: 1, ChunkDelay: 5 * time.Millisecond},
			{Malformed: true},
			{Chunks: []Chunk{Text("a")}, MidStreamError: 503, ErrMessage: "overloaded"},
		}},
		{"raw", `raw {"candidates":[]}`, []Turn{auto(stop(Chunk{Raw: `{"candidates":[]}`}))}},
		{"real shapes", "text Done.\nsigonly sig\n---\ntext The\nfinish RECITATION\nfinishmessage \"Recited.\"\n---\nblock SAFETY Unsafe prompt.\n---\n" +
			"error 429 Quota.\nerrdetail {\"@type\": \"type.googleapis.com/google.rpc.RetryInfo\", \"retryDelay\": \"7s\"}", []Turn{
			auto(Text("Done."), stop(SignatureOnly("sig"))),
			auto(Chunk{Text: "The", FinishReason: genai.FinishReasonRecitation, FinishMessage: "Recited."}),
			auto(Chunk{BlockReason: "SAFETY", BlockReasonMessage: "Unsafe prompt."}),
			{Status: 429, ErrMessage: "Quota.", ErrDetails: []map[string]any{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}}},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got, err := ParseScript(tc.src)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmp.AllowUnexported(Turn{})); diff != "" {
				t.Errorf("ParseScript (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseScriptErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ src, want string }{
		{"text a\nfrobnicate", `line 2: unknown directive "frobnicate"`},
		{"text", "line 1: missing text"},
		{`text "unterminated`, "line 1: bad quoted text"},
		{"call", "line 1: call: missing function name"},
		{"call f [1]", "line 1: call f: args must be a JSON object"},
		{"callid id1", "line 1: callid: missing function name"},
		{"signature s", "line 1: signature: no chunk before it"},
		{"error 200 ok", `line 1: error: bad HTTP status "200"`},
		{"midstream x", `line 1: midstream: bad HTTP status "x"`},
		{"cut 0", "line 1: cut: want a chunk count >= 1"},
		{"malformed yes", "line 1: malformed: takes no argument"},
		{"delay soon", `line 1: delay: bad duration "soon"`},
		{"usage 1 2", "line 1: usage: want <prompt> <output> <thoughts>"},
		{"usage 1 2 x", `line 1: usage: bad count "x"`},
		{"finish A B", "line 1: finish: want one reason"},
		{"raw", "line 1: raw: missing data"},
		{"text a\n---\n\n---\ntext b", "line 4: empty turn"},
		{"text a\n---\n", "line 3: empty turn"},
		{"error 500\ntext a", "line 2: an error turn has only error, retryafter, errdetail and delay"},
		{"text a\nretryafter 3", "line 2: retryafter without error"},
	} {
		_, err := ParseScript(tc.src)
		if err == nil || !strings.HasPrefix(err.Error(), "geminitest: script ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseScript(%q) = %v, want an error containing %q", tc.src, err, tc.want)
		}
	}
}
