package gemini

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"
)

func TestClientConfig(t *testing.T) {
	t.Parallel()
	gemini := func(key, url string) *genai.ClientConfig {
		return &genai.ClientConfig{Backend: genai.BackendGeminiAPI, APIKey: key,
			HTTPOptions: genai.HTTPOptions{BaseURL: url, APIVersion: "v1beta"}}
	}
	vertex := func(key, project, location, url string) *genai.ClientConfig {
		return &genai.ClientConfig{Backend: genai.BackendVertexAI, APIKey: key, Project: project, Location: location,
			HTTPOptions: genai.HTTPOptions{BaseURL: url, APIVersion: "v1beta1"}}
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		env  map[string]string
		want *genai.ClientConfig // nil: ErrNoCredentials
	}{
		{"nothing", Config{}, nil, nil},
		{"explicit key", Config{APIKey: "k"}, map[string]string{"GEMINI_API_KEY": "env"}, gemini("k", geminiBaseURL)},
		{"GEMINI_API_KEY first", Config{}, map[string]string{"GEMINI_API_KEY": "g", "GOOGLE_API_KEY": "o"}, gemini("g", geminiBaseURL)},
		{"GOOGLE_API_KEY", Config{}, map[string]string{"GOOGLE_API_KEY": "o"}, gemini("o", geminiBaseURL)},
		{"base URL from env", Config{}, map[string]string{"GEMINI_API_KEY": "g", "GOOGLE_GEMINI_BASE_URL": "http://fake/"},
			gemini("g", "http://fake/")},
		{"explicit base URL", Config{APIKey: "k", BaseURL: "http://mine/"}, map[string]string{"GOOGLE_GEMINI_BASE_URL": "http://fake/"},
			gemini("k", "http://mine/")},
		{"project ignored for Gemini API", Config{APIKey: "k"}, map[string]string{"GOOGLE_CLOUD_PROJECT": "p"}, gemini("k", geminiBaseURL)},
		{"vertex nothing", Config{Vertex: true}, nil, nil},
		{"vertex from env", Config{}, map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "True", "GOOGLE_CLOUD_PROJECT": "p",
			"GOOGLE_CLOUD_LOCATION": "europe-west4", "GEMINI_API_KEY": "ignored"},
			vertex("", "p", "europe-west4", "https://europe-west4-aiplatform.googleapis.com/")},
		{"vertex region", Config{Vertex: true}, map[string]string{"GOOGLE_CLOUD_PROJECT": "p", "GOOGLE_CLOUD_REGION": "us"},
			vertex("", "p", "us", "https://aiplatform.us.rep.googleapis.com/")},
		{"vertex global", Config{Vertex: true, Project: "p"}, map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "0"},
			vertex("", "p", "global", vertexBaseURL)},
		{"vertex express", Config{}, map[string]string{"GOOGLE_GENAI_USE_VERTEXAI": "1", "GOOGLE_API_KEY": "o"},
			vertex("o", "", "", vertexBaseURL)},
		{"vertex explicit key beats env project", Config{Vertex: true, APIKey: "k"}, map[string]string{"GOOGLE_CLOUD_PROJECT": "p"},
			vertex("k", "", "", vertexBaseURL)},
		{"vertex base URL", Config{Vertex: true, Project: "p", Location: "l"}, map[string]string{"GOOGLE_VERTEX_BASE_URL": "http://v/"},
			vertex("", "p", "l", "http://v/")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cfg := tc.cfg
			cfg.Getenv = func(k string) string { return tc.env[k] }
			got, err := clientConfig(cfg)
			if tc.want == nil {
				if !errors.Is(err, ErrNoCredentials) {
					t.Fatalf("clientConfig = %v, %v; want ErrNoCredentials", got, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, got, cmpopts.IgnoreUnexported(genai.ClientConfig{})); diff != "" {
				t.Errorf("clientConfig (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCallConfigCopies(t *testing.T) {
	t.Parallel()
	in := &genai.GenerateContentConfig{
		SystemInstruction: &genai.Content{Parts: []*genai.Part{{Text: "sys"}}},
		HTTPOptions:       &genai.HTTPOptions{RetryOptions: &genai.HTTPRetryOptions{}},
		Temperature:       genai.Ptr[float32](0.5),
	}
	got := callConfig(in)
	if got == in || got.SystemInstruction == in.SystemInstruction || got.HTTPOptions == in.HTTPOptions {
		t.Error("callConfig shares the config, its system instruction or its HTTP options")
	}
	if got.AutomaticContinuation == nil || *got.AutomaticContinuation || got.HTTPOptions.RetryOptions != nil || *got.Temperature != 0.5 {
		t.Errorf("callConfig = %+v, want continuation and retries off, temperature kept", got)
	}
	if in.AutomaticContinuation != nil || in.HTTPOptions.RetryOptions == nil {
		t.Error("callConfig changed its input")
	}
	if c := callConfig(nil); c == nil || !cmp.Equal(c.AutomaticContinuation, genai.Ptr(false)) {
		t.Errorf("callConfig(nil) = %+v", c)
	}
}
