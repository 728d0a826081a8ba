package gemini_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// env is a Getenv over a map.
func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// newModel is a Model for srv configured only through Getenv.
func newModel(t *testing.T, srv *geminitest.Server) *gemini.Model {
	t.Helper()
	m, err := gemini.New(t.Context(), gemini.Config{
		HTTPClient: srv.Client(),
		Getenv:     env(map[string]string{"GEMINI_API_KEY": "env-key", "GOOGLE_GEMINI_BASE_URL": srv.URL}),
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func generate(ctx context.Context, m agent.Model, req *agent.Request) ([]*genai.GenerateContentResponse, error) {
	var out []*genai.GenerateContentResponse
	for resp, err := range m.Generate(ctx, req) {
		if err != nil {
			return out, err
		}
		out = append(out, resp)
	}
	return out, nil
}

func TestNewNoCredentials(t *testing.T) {
	t.Parallel()
	for _, cfg := range []gemini.Config{
		{Getenv: env(nil)},
		{Getenv: env(map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "true"})},
		{Vertex: true, Getenv: env(map[string]string{"GOOGLE_CLOUD_LOCATION": "us-central1"})},
	} {
		m, err := gemini.New(t.Context(), cfg)
		if !errors.Is(err, gemini.ErrNoCredentials) || m != nil {
			t.Errorf("New(%+v) = %v, %v; want ErrNoCredentials", cfg, m, err)
		}
	}
	if msg := gemini.ErrNoCredentials.Error(); !strings.Contains(msg, "GEMINI_API_KEY") || !strings.Contains(msg, "Vertex AI") {
		t.Errorf("ErrNoCredentials = %q, want it to name GEMINI_API_KEY and Vertex AI", msg)
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	call := geminitest.Call("read_file", map[string]any{"path": "a.go"})
	call.ThoughtSignature = []byte("sig")
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Thought("Hmm."), geminitest.Text("Reading."), call))
	m := newModel(t, srv)
	if m.Name() != gemini.DefaultModel {
		t.Errorf("Name() = %q, want %q", m.Name(), gemini.DefaultModel)
	}
	sys := &genai.Content{Parts: []*genai.Part{{Text: "You are an agent."}}}
	cfg := &genai.GenerateContentConfig{SystemInstruction: sys}
	got, err := generate(t.Context(), m, &agent.Request{Contents: genai.Text("read a.go"), Config: cfg})
	if err != nil {
		t.Fatal(err)
	}
	var parts []*genai.Part
	for _, resp := range got {
		parts = append(parts, resp.Candidates[0].Content.Parts...)
	}
	want := []*genai.Part{
		{Text: "Hmm.", Thought: true},
		{Text: "Reading."},
		{FunctionCall: &genai.FunctionCall{Name: "read_file", Args: map[string]any{"path": "a.go"}}, ThoughtSignature: []byte("sig")},
	}
	if diff := cmp.Diff(want, parts); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if last := got[len(got)-1]; last.Candidates[0].FinishReason != genai.FinishReasonStop || last.UsageMetadata == nil {
		t.Errorf("last chunk has finish %q usage %v, want STOP and usage", last.Candidates[0].FinishReason, last.UsageMetadata)
	}
	r := srv.Requests()[0]
	if r.Model != gemini.DefaultModel || r.Header.Get("x-goog-api-key") != "env-key" || r.SystemInstruction.Parts[0].Text != "You are an agent." {
		t.Errorf("request model %q key %q system %v", r.Model, r.Header.Get("x-goog-api-key"), r.SystemInstruction)
	}
	// The SDK fills the system instruction's role; the caller's config,
	// maybe shared with other runs, must stay as it was.
	if diff := cmp.Diff(&genai.GenerateContentConfig{SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "You are an agent."}}}}, cfg); diff != "" {
		t.Errorf("caller's config changed (-want +got):\n%s", diff)
	}
}

func TestGenerateModelOverride(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("a")), geminitest.Reply(geminitest.Text("b")))
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: "k", BaseURL: srv.URL, Model: "gemini-x", HTTPClient: srv.Client(), Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"", "gemini-y"} {
		if _, err := generate(t.Context(), m, &agent.Request{Model: name, Contents: genai.Text("hi")}); err != nil {
			t.Fatal(err)
		}
	}
	reqs := srv.Requests()
	if reqs[0].Model != "gemini-x" || reqs[1].Model != "gemini-y" {
		t.Errorf("models %q, %q; want gemini-x, gemini-y", reqs[0].Model, reqs[1].Model)
	}
}

// TestNoContinuation sends a continuation token without a finish reason,
// which makes the SDK re-send the request unless continuation is off.
func TestNoContinuation(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Turn{Chunks: []geminitest.Chunk{{
		Raw: `{"candidates":[{"content":{"parts":[{"text":"partial"}],"role":"model"},"index":0,"continuationToken":"dG9rZW4="}]}`,
	}}})
	got, err := generate(t.Context(), newModel(t, srv), &agent.Request{
		Contents: genai.Text("hi"),
		Config:   &genai.GenerateContentConfig{AutomaticContinuation: genai.Ptr(true)},
	})
	if err != nil || len(got) != 1 {
		t.Errorf("got %d chunks, %v; want 1 chunk", len(got), err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1", n)
	}
}

func TestGenerateErrors(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t,
		geminitest.Turn{Status: 429, ErrMessage: "quota exceeded", RetryAfter: "3"},
		geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("a")}, CutAfter: 1},
		geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("a")}, Malformed: true},
	)
	m := newModel(t, srv)
	req := &agent.Request{Contents: genai.Text("hi")}

	_, err := generate(t.Context(), m, req)
	var apiErr genai.APIError
	var me *agent.ModelError
	if !errors.As(err, &apiErr) || apiErr.Code != 429 || apiErr.Status != "RESOURCE_EXHAUSTED" || apiErr.Message != "quota exceeded" ||
		!errors.As(err, &me) || me.Model != gemini.DefaultModel {
		t.Errorf("err = %v, want a ModelError wrapping the 429 RESOURCE_EXHAUSTED APIError", err)
	}
	if want := `the Gemini API's rate limit for model "gemini-flash-latest" was reached (429 RESOURCE_EXHAUSTED): quota exceeded`; err.Error() != want {
		t.Errorf("err = %q, want %q", err, want)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("server got %d requests, want 1 (no SDK retries)", n)
	}

	// A cut stream is a transport error a retry layer can recognise.
	got, err := generate(t.Context(), m, req)
	if len(got) != 1 || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut: got %d chunks, %v; want 1 chunk, then io.ErrUnexpectedEOF", len(got), err)
	}
	got, err = generate(t.Context(), m, req)
	if len(got) != 1 || err == nil || !strings.Contains(err.Error(), `the answer of model "gemini-flash-latest" could not be read: `) {
		t.Errorf("malformed: got %d chunks, %v; want 1 chunk, then an unmarshalling error", len(got), err)
	}
}

func TestGenerateCancelled(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("a")))
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err := generate(ctx, newModel(t, srv), &agent.Request{Contents: genai.Text("hi")})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("server got %d requests, want 0", n)
	}
}

func TestGenerateStopEarly(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("a"), geminitest.Text("b"), geminitest.Text("c")))
	n := 0
	for _, err := range newModel(t, srv).Generate(t.Context(), &agent.Request{Contents: genai.Text("hi")}) {
		if err != nil {
			t.Fatal(err)
		}
		n++
		break
	}
	if n != 1 {
		t.Errorf("got %d chunks, want 1", n)
	}
}

// bearer authenticates Vertex AI requests as Application Default
// Credentials would.
type bearer struct{ base http.RoundTripper }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer token")
	return b.base.RoundTrip(r)
}

func TestVertex(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("vertex")))
	m, err := gemini.New(t.Context(), gemini.Config{
		BaseURL:    srv.URL,
		HTTPClient: &http.Client{Transport: bearer{srv.Client().Transport}},
		Getenv: env(map[string]string{
			"GOOGLE_GENAI_USE_VERTEXAI": "true", "GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_LOCATION": "us-central1",
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := generate(t.Context(), m, &agent.Request{Contents: genai.Text("hi")})
	if err != nil {
		t.Fatal(err)
	}
	want := []*genai.Part{{Text: "vertex"}}
	if diff := cmp.Diff(want, got[0].Candidates[0].Content.Parts, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("parts (-want +got):\n%s", diff)
	}
	if path := srv.Requests()[0].Path; path != "/v1beta1/projects/p/locations/us-central1/publishers/google/models/"+gemini.DefaultModel+":streamGenerateContent" {
		t.Errorf("path = %q", path)
	}
}

// TestProcessEnvIgnored sets the process environment the SDK reads on its
// own; Getenv must win.
func TestProcessEnvIgnored(t *testing.T) {
	t.Setenv("GOOGLE_GEMINI_BASE_URL", "http://127.0.0.1:1/")
	t.Setenv("GOOGLE_API_KEY", "process-key")
	t.Setenv("GOOGLE_GENAI_USE_VERTEXAI", "true")
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("a")))
	if _, err := generate(t.Context(), newModel(t, srv), &agent.Request{Contents: genai.Text("hi")}); err != nil {
		t.Fatal(err)
	}
	if r := srv.Requests()[0]; r.Header.Get("x-goog-api-key") != "env-key" || !strings.HasPrefix(r.Path, "/v1beta/") {
		t.Errorf("request key %q path %q, want env-key on the Gemini API", r.Header.Get("x-goog-api-key"), r.Path)
	}
}
