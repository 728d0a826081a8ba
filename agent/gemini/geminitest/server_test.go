package geminitest_test

import (
	"iter"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

const model = "gemini-2.5-flash"

// newClient is a real genai client for srv.
func newClient(t *testing.T, srv *geminitest.Server) *genai.Client {
	t.Helper()
	c, err := genai.NewClient(t.Context(), &genai.ClientConfig{
		APIKey:      "test-key",
		Backend:     genai.BackendGeminiAPI,
		HTTPClient:  srv.Client(),
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL},
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// noContinuation keeps the SDK to one request per call.
var noContinuation = &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(false)}

func collect(seq iter.Seq2[*genai.GenerateContentResponse, error]) ([]*genai.GenerateContentResponse, error) {
	var out []*genai.GenerateContentResponse
	for resp, err := range seq {
		if err != nil {
			return out, err
		}
		out = append(out, resp)
	}
	return out, nil
}

var ignoreHTTP = cmpopts.IgnoreFields(genai.GenerateContentResponse{}, "SDKHTTPResponse")

func response(id string, reason genai.FinishReason, usage *genai.GenerateContentResponseUsageMetadata, parts ...*genai.Part) *genai.GenerateContentResponse {
	cand := &genai.Candidate{FinishReason: reason}
	if len(parts) > 0 {
		cand.Content = &genai.Content{Role: genai.RoleModel, Parts: parts}
	}
	return &genai.GenerateContentResponse{
		Candidates:    []*genai.Candidate{cand},
		ModelVersion:  model,
		ResponseID:    id,
		UsageMetadata: usage,
	}
}

var usage = &genai.GenerateContentResponseUsageMetadata{
	PromptTokenCount: 10, CandidatesTokenCount: 7, ThoughtsTokenCount: 5, CachedContentTokenCount: 2, TotalTokenCount: 22,
}

func TestStreamRoundTrip(t *testing.T) {
	t.Parallel()
	call := geminitest.CallID("call_1", "read_file", map[string]any{"path": "a.go", "n": 2.0})
	call.ThoughtSignature = []byte("signature\x00\xff")
	call.Usage = usage
	srv := geminitest.NewServer(t, geminitest.Reply(
		geminitest.Thought("Let me think."),
		geminitest.Text("I will read it."),
		call,
	))
	got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("read a.go"), noContinuation))
	if err != nil {
		t.Fatal(err)
	}
	want := []*genai.GenerateContentResponse{
		response("geminitest-1", "", nil, &genai.Part{Text: "Let me think.", Thought: true}),
		response("geminitest-1", "", nil, &genai.Part{Text: "I will read it."}),
		response("geminitest-1", genai.FinishReasonStop, usage, &genai.Part{
			FunctionCall:     &genai.FunctionCall{ID: "call_1", Name: "read_file", Args: map[string]any{"path": "a.go", "n": 2.0}},
			ThoughtSignature: []byte("signature\x00\xff"),
		}),
	}
	if diff := cmp.Diff(want, got, ignoreHTTP); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
	if srv.Remaining() != 0 {
		t.Errorf("Remaining() = %d, want 0", srv.Remaining())
	}
}

func TestChunkVariants(t *testing.T) {
	t.Parallel()
	sig := geminitest.Text("answer")
	sig.ThoughtSignature = []byte("sig")
	srv := geminitest.NewServer(t, geminitest.Reply(
		geminitest.Chunk{Thought: "hmm", Text: "both", Call: &genai.FunctionCall{Name: "f"}},
		sig,
		geminitest.Chunk{Raw: `{"candidates":[{"content":{"parts":[{"text":"raw"}],"role":"model"},"index":0}]}`},
		geminitest.Chunk{EmptyCandidates: true, Usage: usage},
		geminitest.Chunk{FinishReason: genai.FinishReasonMaxTokens},
	))
	got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation))
	if err != nil {
		t.Fatal(err)
	}
	want := []*genai.GenerateContentResponse{
		response("geminitest-1", "", nil,
			&genai.Part{Text: "hmm", Thought: true}, &genai.Part{Text: "both"}, &genai.Part{FunctionCall: &genai.FunctionCall{Name: "f"}}),
		response("geminitest-1", "", nil, &genai.Part{Text: "answer", ThoughtSignature: []byte("sig")}),
		{Candidates: []*genai.Candidate{{Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{Text: "raw"}}}}}},
		{ModelVersion: model, ResponseID: "geminitest-1", UsageMetadata: usage},
		response("geminitest-1", genai.FinishReasonMaxTokens, nil),
	}
	if diff := cmp.Diff(want, got, ignoreHTTP); diff != "" {
		t.Errorf("chunks (-want +got):\n%s", diff)
	}
}

func TestEstimatedUsage(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Thought("12345678"), geminitest.Text("hello world")))
	got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("count me"), noContinuation))
	if err != nil {
		t.Fatal(err)
	}
	u := got[len(got)-1].UsageMetadata
	if u == nil || u.PromptTokenCount == 0 || u.CandidatesTokenCount != 3 || u.ThoughtsTokenCount != 2 ||
		u.TotalTokenCount != u.PromptTokenCount+5 {
		t.Errorf("usage = %+v, want prompt > 0, candidates 3, thoughts 2, total their sum", u)
	}
}

func TestRequestRecorded(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("ok")))
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"path": map[string]any{"type": "string"}},
		"required":   []any{"path"},
	}
	contents := []*genai.Content{
		{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "read a.go"}}},
		{Role: genai.RoleModel, Parts: []*genai.Part{{
			FunctionCall:     &genai.FunctionCall{ID: "call_0", Name: "list", Args: map[string]any{"dir": "."}},
			ThoughtSignature: []byte("c2ln"),
		}}},
		{Role: genai.RoleUser, Parts: []*genai.Part{{
			FunctionResponse: &genai.FunctionResponse{ID: "call_0", Name: "list", Response: map[string]any{"output": []any{"a.go"}}},
		}}},
	}
	tools := []*genai.Tool{{FunctionDeclarations: []*genai.FunctionDeclaration{{
		Name: "read_file", Description: "Read a file", ParametersJsonSchema: schema,
	}}}}
	cfg := &genai.GenerateContentConfig{
		SystemInstruction:     genai.NewContentFromText("You are an agent.", ""),
		Tools:                 tools,
		ToolConfig:            &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}},
		ThinkingConfig:        &genai.ThinkingConfig{IncludeThoughts: true, ThinkingBudget: genai.Ptr[int32](1024)},
		AutomaticContinuation: genai.Ptr(false),
	}
	if _, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, contents, cfg)); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("got %d requests, want 1", len(reqs))
	}
	r := reqs[0]
	if r.Method != "POST" || r.Path != "/v1beta/models/"+model+":streamGenerateContent" || r.RPC != "streamGenerateContent" ||
		r.Model != model || !r.Stream || r.Header.Get("x-goog-api-key") != "test-key" {
		t.Errorf("request = %s %s rpc %q model %q stream %v key %q", r.Method, r.Path, r.RPC, r.Model, r.Stream, r.Header.Get("x-goog-api-key"))
	}
	if diff := cmp.Diff(contents, r.Contents); diff != "" {
		t.Errorf("contents (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(genai.NewContentFromText("You are an agent.", genai.RoleUser), r.SystemInstruction); diff != "" {
		t.Errorf("system instruction (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(tools, r.Tools); diff != "" {
		t.Errorf("tools (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(cfg.ToolConfig, r.ToolConfig); diff != "" {
		t.Errorf("tool config (-want +got):\n%s", diff)
	}
	if got, want := string(r.GenerationConfig), `{"thinkingConfig":{"includeThoughts":true,"thinkingBudget":1024}}`; got != want {
		t.Errorf("generationConfig = %s, want %s", got, want)
	}
}

func TestUnaryMerges(t *testing.T) {
	t.Parallel()
	first := geminitest.Text("a")
	first.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1, TotalTokenCount: 1}
	call := geminitest.Call("f", map[string]any{"x": "y"})
	call.ThoughtSignature = []byte("s")
	call.Usage = usage
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Thought("t"), first, geminitest.Text("b"), call))
	got, err := newClient(t, srv).Models.GenerateContent(t.Context(), model, genai.Text("hi"), nil)
	if err != nil {
		t.Fatal(err)
	}
	want := response("geminitest-1", genai.FinishReasonStop, usage,
		&genai.Part{Text: "t", Thought: true}, &genai.Part{Text: "a"}, &genai.Part{Text: "b"},
		&genai.Part{FunctionCall: &genai.FunctionCall{Name: "f", Args: map[string]any{"x": "y"}}, ThoughtSignature: []byte("s")})
	if diff := cmp.Diff(want, got, ignoreHTTP); diff != "" {
		t.Errorf("response (-want +got):\n%s", diff)
	}
	if r := srv.Requests()[0]; r.RPC != "generateContent" || r.Stream {
		t.Errorf("request rpc %q stream %v, want generateContent, false", r.RPC, r.Stream)
	}
}

func TestCountTokens(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply())
	got, err := newClient(t, srv).Models.CountTokens(t.Context(), model, genai.Text(strings.Repeat("x", 400)), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalTokens < 100 || got.TotalTokens > 120 {
		t.Errorf("TotalTokens = %d, want about 100", got.TotalTokens)
	}
	if srv.Remaining() != 1 {
		t.Errorf("countTokens consumed a turn")
	}
}

func TestConcurrentTurns(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	const n = 8
	c := newClient(t, srv)
	var wg sync.WaitGroup
	for range n {
		srv.Push(geminitest.Reply(geminitest.Text("x")))
		wg.Go(func() {
			if _, err := collect(c.Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation)); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := len(srv.Requests()); got != n || srv.Remaining() != 0 {
		t.Errorf("got %d requests and %d turns left, want %d and 0", got, srv.Remaining(), n)
	}
}

func TestVertexPaths(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		cc   genai.ClientConfig
		path string
	}{
		{"project", genai.ClientConfig{Project: "p", Location: "us-central1",
			HTTPOptions: genai.HTTPOptions{Headers: map[string][]string{"Authorization": {"Bearer token"}}}},
			"/v1beta1/projects/p/locations/us-central1/publishers/google/models/" + model + ":streamGenerateContent"},
		{"express", genai.ClientConfig{APIKey: "test-key"},
			"/v1beta1/publishers/google/models/" + model + ":streamGenerateContent"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("vertex")))
			cc := tc.cc
			cc.Backend = genai.BackendVertexAI
			cc.HTTPClient = srv.Client()
			cc.HTTPOptions.BaseURL = srv.URL
			c, err := genai.NewClient(t.Context(), &cc)
			if err != nil {
				t.Fatal(err)
			}
			got, err := collect(c.Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != 1 || got[0].Candidates[0].Content.Parts[0].Text != "vertex" {
				t.Errorf("got %v, want one chunk with text vertex", got)
			}
			if r := srv.Requests()[0]; r.Path != tc.path || r.Model != model {
				t.Errorf("request path %q model %q, want %q %q", r.Path, r.Model, tc.path, model)
			}
		})
	}
}
