package geminitest_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// post sends body to path with key and returns the status and raw body.
func post(t *testing.T, srv *geminitest.Server, path, key, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("x-goog-api-key", key)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestWireBytes pins the exact bytes: one line of JSON per event, real
// field names, no zero-valued junk such as "createTime".
func TestWireBytes(t *testing.T) {
	t.Parallel()
	call := geminitest.CallID("call_1", "read_file", map[string]any{"path": "a.go"})
	call.ThoughtSignature = []byte("signature")
	call.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 10, CandidatesTokenCount: 7, ThoughtsTokenCount: 5, TotalTokenCount: 22}
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Thought("Hmm."), call))
	code, body := post(t, srv, "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", "k", `{"contents":[]}`)
	want := `data: {"candidates":[{"content":{"parts":[{"text":"Hmm.","thought":true}],"role":"model"},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"geminitest-1"}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"id":"call_1","name":"read_file","args":{"path":"a.go"}},"thoughtSignature":"c2lnbmF0dXJl"}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":7,"thoughtsTokenCount":5,"totalTokenCount":22},"modelVersion":"gemini-2.5-flash","responseId":"geminitest-1"}` + "\n\n"
	if code != http.StatusOK || body != want {
		t.Errorf("got %d\n%s\nwant 200\n%s", code, body, want)
	}
}

func TestWireErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, path, key string
		code            int
		body            string
	}{
		{"no key", "/v1beta/models/m:generateContent", "", 403,
			`{"error":{"code":403,"message":"Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.","status":"PERMISSION_DENIED"}}`},
		{"wrong key", "/v1beta/models/m:generateContent", "other", 400,
			`{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`},
		{"unknown path", "/v1beta/files", "right", 404,
			`{"error":{"code":404,"message":"geminitest: no such method: POST /v1beta/files","status":"NOT_FOUND"}}`},
		{"no alt=sse", "/v1beta/models/m:streamGenerateContent", "right", 400,
			`{"error":{"code":400,"message":"geminitest: streamGenerateContent needs alt=sse","status":"INVALID_ARGUMENT"}}`},
		{"no turn", "/v1beta/models/m:generateContent", "right", 500,
			`{"error":{"code":500,"message":"geminitest: no scripted turn left","status":"INTERNAL"}}`},
		{"count", "/v1beta/models/m:countTokens", "right", 200, `{"totalTokens": 7}` + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t)
			srv.RequireAPIKey("right")
			code, body := post(t, srv, tc.path, tc.key, `{"contents":[{"parts":[{"text":"hi"}]}]}`)
			if code != tc.code || body != tc.body {
				t.Errorf("got %d %s\nwant %d %s", code, body, tc.code, tc.body)
			}
			if n := len(srv.Errors()); (tc.code == 200) != (n == 0) {
				t.Errorf("%d errors recorded: %v", n, srv.Errors())
			}
		})
	}
}

// get sends a GET to path with key and returns the status and raw body.
func get(t *testing.T, srv *geminitest.Server, path string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, srv.URL+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("x-goog-api-key", "k")
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// TestWireShapes pins the bytes of the shapes the real API sends that the
// shorthand fields cannot make.
func TestWireShapes(t *testing.T) {
	t.Parallel()
	const path = "/v1beta/models/m:streamGenerateContent?alt=sse"
	const env = `"modelVersion":"m","responseId":"geminitest-1"}`
	usage := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 100, CandidatesTokenCount: 5, ThoughtsTokenCount: 7,
		CachedContentTokenCount: 60, ToolUsePromptTokenCount: 3, TotalTokenCount: 115}
	for _, tc := range []struct {
		name string
		turn geminitest.Turn
		want []string // the events' data
	}{
		{"parallel calls, only the first signed", geminitest.Reply(geminitest.Parts(
			geminitest.Part{Call: &genai.FunctionCall{Name: "a"}, Signature: []byte("s")},
			geminitest.Part{Call: &genai.FunctionCall{Name: "b", ID: "id_b"}},
		)), []string{`{"candidates":[{"content":{"parts":[{"functionCall":{"name":"a"},"thoughtSignature":"cw=="},{"functionCall":{"id":"id_b","name":"b"}}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":3,"totalTokenCount":4},` + env}},
		{"a trailing signature-only part", geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("Hi."), geminitest.SignatureOnly("s")}},
			[]string{`{"candidates":[{"content":{"parts":[{"text":"Hi."}],"role":"model"},"index":0}],` + env,
				`{"candidates":[{"content":{"parts":[{"text":"","thoughtSignature":"cw=="}],"role":"model"},"index":0}],` + env}},
		{"a finish message", geminitest.Turn{Chunks: []geminitest.Chunk{{FinishReason: genai.FinishReasonSPII, FinishMessage: "PII."}}},
			[]string{`{"candidates":[{"finishReason":"SPII","finishMessage":"PII.","index":0}],` + env}},
		{"a blocked prompt", geminitest.Blocked("SAFETY", "Unsafe."),
			[]string{`{"promptFeedback":{"blockReason":"SAFETY","blockReasonMessage":"Unsafe."},"usageMetadata":{"promptTokenCount":1,"totalTokenCount":1},` + env}},
		{"usage with cached, thoughts and tool-use tokens", geminitest.Turn{Chunks: []geminitest.Chunk{{Usage: usage, FinishReason: genai.FinishReasonStop}}},
			[]string{`{"candidates":[{"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":100,"candidatesTokenCount":5,"thoughtsTokenCount":7,"toolUsePromptTokenCount":3,"cachedContentTokenCount":60,"totalTokenCount":115},` + env}},
		{"an error with details inside the stream", geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("a")}, MidStreamError: 429,
			ErrMessage: "Quota.", ErrDetails: []map[string]any{geminitest.QuotaFailure("m", geminitest.PerDayQuota), geminitest.RetryInfo("20s")}},
			[]string{`{"candidates":[{"content":{"parts":[{"text":"a"}],"role":"model"},"index":0}],` + env,
				`{"error":{"code":429,"message":"Quota.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaDimensions":{"location":"global","model":"m"},"quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier","quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests"}]},{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"20s"}]}}`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, tc.turn)
			code, body := post(t, srv, path, "k", `{"contents":[]}`)
			want := ""
			for _, d := range tc.want {
				want += "data: " + d + "\n\n"
			}
			if code != http.StatusOK || body != want {
				t.Errorf("got %d\n%s\nwant 200\n%s", code, body, want)
			}
		})
	}
}

func TestWireErrorBodies(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t,
		geminitest.QuotaExceeded("m", "27s", geminitest.PerMinuteQuota),
		geminitest.Overloaded(),
		geminitest.Turn{Status: 403, ErrMessage: "Denied.", ErrDetails: []map[string]any{geminitest.ErrorInfo("API_KEY_SERVICE_BLOCKED", "googleapis.com", map[string]string{"service": "generativelanguage.googleapis.com"})}},
	)
	srv.Retire("gemini-2.5-flash")
	for _, want := range []struct {
		path string
		code int
		body string
	}{
		{"/v1beta/models/m:generateContent", 429, `{"error":{"code":429,"message":"` + geminitest.QuotaMessage + ` Please retry in 27s.","status":"RESOURCE_EXHAUSTED","details":[` +
			`{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaDimensions":{"location":"global","model":"m"},"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier","quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests"}]},` +
			`{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Learn more about Gemini API quotas","url":"https://ai.google.dev/gemini-api/docs/rate-limits"}]},` +
			`{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"27s"}]}}`},
		{"/v1beta/models/gemini-2.5-flash:generateContent", 404, `{"error":{"code":404,"message":"This model models/gemini-2.5-flash is no longer available to new users. Please update your code to use a newer model for the latest features and improvements.","status":"NOT_FOUND"}}`},
		{"/v1beta/models/m:generateContent", 503, `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`},
		{"/v1beta/models/m:generateContent", 403, `{"error":{"code":403,"message":"Denied.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","domain":"googleapis.com","metadata":{"service":"generativelanguage.googleapis.com"},"reason":"API_KEY_SERVICE_BLOCKED"}]}}`},
	} {
		code, body := post(t, srv, want.path, "k", `{"contents":[]}`)
		if code != want.code || body != want.body {
			t.Errorf("POST %s: got %d\n%s\nwant %d\n%s", want.path, code, body, want.code, want.body)
		}
	}
	if srv.Remaining() != 0 {
		t.Errorf("%d turns left; the retired model's request must not consume one", srv.Remaining())
	}
}

func TestListModels(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.SetModels(geminitest.ModelInfo{Name: "gemini-3.5-flash", Methods: []string{"generateContent"}}, geminitest.ModelInfo{Name: "gemini-2.5-flash", Methods: []string{"generateContent"}})
	srv.Retire("gemini-2.5-flash")
	code, body := get(t, srv, "/v1beta/models?pageSize=1000")
	want := `{"models":[{"name":"models/gemini-3.5-flash","displayName":"gemini-3.5-flash","supportedGenerationMethods":["generateContent"]}]}` + "\n"
	if code != 200 || body != want {
		t.Errorf("got %d %s\nwant 200 %s", code, body, want)
	}
	if r := srv.Requests()[0]; r.RPC != "listModels" || r.Method != http.MethodGet {
		t.Errorf("recorded %+v", r)
	}
}

// TestGroundingWire: a grounded answer's last chunk carries
// groundingMetadata in the API's shape (proto3 JSON: a zero startIndex is
// left out), and genai decodes it into its own types.
func TestGroundingWire(t *testing.T) {
	t.Parallel()
	g := geminitest.Grounding{
		Queries:    []string{"go 1.26 release"},
		Sources:    []geminitest.Source{{URI: "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC", Title: "go.dev"}},
		Supports:   []geminitest.Support{{Start: 0, End: 12, Text: "Go 1.26 is out", Sources: []int{0}, Confidence: []float64{0.9}}},
		EntryPoint: "<div>chips</div>",
	}
	srv := geminitest.NewServer(t, geminitest.Grounded("Go 1.26 is out.", g), geminitest.Grounded("Go 1.26 is out.", g))
	_, body := post(t, srv, "/v1beta/models/m:streamGenerateContent?alt=sse", "k", `{"contents":[]}`)
	want := `"groundingMetadata":{"searchEntryPoint":{"renderedContent":"\u003cdiv\u003echips\u003c/div\u003e"},"groundingChunks":[{"web":{"uri":"https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC","title":"go.dev"}}],"groundingSupports":[{"segment":{"endIndex":12,"text":"Go 1.26 is out"},"groundingChunkIndices":[0],"confidenceScores":[0.9]}],"webSearchQueries":["go 1.26 release"]}`
	if !strings.Contains(body, want) {
		t.Errorf("body lacks %s:\n%s", want, body)
	}
	got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("q"), noContinuation))
	if err != nil {
		t.Fatal(err)
	}
	gm := got[len(got)-1].Candidates[0].GroundingMetadata
	if gm == nil || len(gm.GroundingChunks) != 1 || gm.GroundingChunks[0].Web.Title != "go.dev" ||
		len(gm.GroundingSupports) != 1 || gm.GroundingSupports[0].Segment.EndIndex != 12 || gm.GroundingSupports[0].GroundingChunkIndices[0] != 0 ||
		gm.WebSearchQueries[0] != "go 1.26 release" || gm.SearchEntryPoint.RenderedContent != "<div>chips</div>" {
		t.Errorf("decoded grounding metadata = %+v", gm)
	}
}
