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
