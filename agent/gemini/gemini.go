// Package gemini is the agent's model adapter for the Gemini API and Vertex
// AI: the only code in agentls that touches genai.Client.
//
// The adapter makes exactly one HTTP attempt per Generate call: SDK retries
// and automatic stream continuation are off, because retrying is a separate
// layer (an agent.Model wrapping this one).
//
// The API's refusals come back as *agent.ModelError, whose text is a
// sentence; for a model the API does not find (404), the adapter asks the
// API once, then, which models the key can use. It is also the one place
// that reads below the SDK's typed response: on the Gemini API backend
// genai drops a candidate's finishMessage, which the adapter restores from
// the raw stream (see tap.go).
package gemini

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// DefaultModel is the model used when neither the Config nor the request
// names one.
const DefaultModel = agent.DefaultModel

// ErrNoCredentials means neither an API key nor a Vertex AI project was
// configured.
var ErrNoCredentials = errors.New("gemini: no credentials: set GEMINI_API_KEY, or configure Vertex AI (GOOGLE_GENAI_USE_VERTEXAI=true with GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION)")

// Default endpoints, set explicitly so that neither the process environment
// nor genai.SetDefaultBaseURLs can redirect a client behind Getenv's back.
const (
	geminiBaseURL = "https://generativelanguage.googleapis.com/"
	vertexBaseURL = "https://aiplatform.googleapis.com/"
)

// Config configures a Model. Empty fields are filled from Getenv.
type Config struct {
	// APIKey authenticates with the Gemini API (or Vertex AI express mode).
	// "" means GEMINI_API_KEY, then GOOGLE_API_KEY.
	APIKey string
	// BaseURL overrides the endpoint. "" means GOOGLE_GEMINI_BASE_URL
	// (GOOGLE_VERTEX_BASE_URL for Vertex AI), then the public endpoint.
	BaseURL string
	// Vertex selects the Vertex AI backend. It is also on when
	// GOOGLE_GENAI_USE_VERTEXAI is "true" or "1".
	Vertex bool
	// Project and Location select the Vertex AI project. "" means
	// GOOGLE_CLOUD_PROJECT and GOOGLE_CLOUD_LOCATION (then
	// GOOGLE_CLOUD_REGION, then "global").
	Project, Location string
	// Model is the default model name; "" means DefaultModel.
	Model string
	// HTTPClient sends the requests; nil means a plain http.Client (or, for
	// Vertex AI with a project, one carrying Application Default
	// Credentials). A client given for Vertex AI must authenticate itself.
	HTTPClient *http.Client
	// Getenv reads the environment; nil means os.Getenv. It is the only
	// source of environment settings: every value the SDK would otherwise
	// read from the process environment is passed to it explicitly.
	Getenv func(string) string
}

// Model is an agent.Model backed by genai. It is safe for concurrent use.
type Model struct {
	client *genai.Client
	name   string
}

var _ agent.Model = (*Model)(nil)

// New returns a Model for cfg. It makes no network call, except that
// Vertex AI without an API key or HTTPClient looks up Application Default
// Credentials (which may read local files named by the process environment).
func New(ctx context.Context, cfg Config) (*Model, error) {
	cc, err := clientConfig(cfg)
	if err != nil {
		return nil, err
	}
	if cc.Backend == genai.BackendGeminiAPI {
		cc.HTTPClient = tapClient(cc.HTTPClient)
	}
	client, err := genai.NewClient(ctx, cc)
	if err != nil {
		if cc.Backend == genai.BackendVertexAI && strings.Contains(err.Error(), "default credentials") {
			return nil, fmt.Errorf("%w: %w", ErrNoCredentials, err)
		}
		return nil, fmt.Errorf("gemini: new client: %w", err)
	}
	name := cfg.Model
	if name == "" {
		name = DefaultModel
	}
	return &Model{client: client, name: name}, nil
}

// clientConfig resolves cfg against Getenv into a ClientConfig with every
// field the SDK would otherwise take from the environment set.
func clientConfig(cfg Config) (*genai.ClientConfig, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	first := func(vals ...string) string {
		for _, v := range vals {
			if v != "" {
				return v
			}
		}
		return ""
	}
	key := first(cfg.APIKey, getenv("GEMINI_API_KEY"), getenv("GOOGLE_API_KEY"))
	useVertex := strings.ToLower(getenv("GOOGLE_GENAI_USE_VERTEXAI"))
	cc := &genai.ClientConfig{HTTPClient: cfg.HTTPClient}

	if !cfg.Vertex && useVertex != "true" && useVertex != "1" {
		if key == "" {
			return nil, ErrNoCredentials
		}
		cc.Backend = genai.BackendGeminiAPI
		cc.APIKey = key
		cc.HTTPOptions = genai.HTTPOptions{
			BaseURL:    first(cfg.BaseURL, getenv("GOOGLE_GEMINI_BASE_URL"), geminiBaseURL),
			APIVersion: "v1beta",
		}
		return cc, nil
	}

	cc.Backend = genai.BackendVertexAI
	project := first(cfg.Project, getenv("GOOGLE_CLOUD_PROJECT"))
	explicitKey := cfg.APIKey != "" && cfg.Project == "" && cfg.Location == ""
	switch {
	case project != "" && !explicitKey:
		// Inv: Project and Location are both set, so the SDK ignores any
		// API key in the process environment and prefixes
		// projects/{p}/locations/{l} to every path.
		cc.Project = project
		cc.Location = first(cfg.Location, getenv("GOOGLE_CLOUD_LOCATION"), getenv("GOOGLE_CLOUD_REGION"), "global")
	case key != "":
		cc.APIKey = key // express mode
	default:
		return nil, ErrNoCredentials
	}
	cc.HTTPOptions = genai.HTTPOptions{
		BaseURL:    first(cfg.BaseURL, getenv("GOOGLE_VERTEX_BASE_URL"), vertexURL(cc.Location)),
		APIVersion: "v1beta1",
	}
	return cc, nil
}

// vertexURL is the regional Vertex AI endpoint, as the SDK computes it.
func vertexURL(location string) string {
	switch location {
	case "", "global":
		return vertexBaseURL
	case "us", "eu":
		return "https://aiplatform." + location + ".rep.googleapis.com/"
	}
	return "https://" + location + "-aiplatform.googleapis.com/"
}

// Name returns the default model name.
func (m *Model) Name() string { return m.name }

// Generate streams one model call. It yields each response chunk as the
// SDK decodes it; on failure it yields the error (wrapping a
// genai.APIError when the API refused) once and stops.
func (m *Model) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if req == nil {
			yield(nil, errors.New("gemini: generate: nil request"))
			return
		}
		if err := ctx.Err(); err != nil {
			yield(nil, fmt.Errorf("gemini: generate: %w", err))
			return
		}
		name := req.Model
		if name == "" {
			name = m.name
		}
		n := &notes{}
		stream := m.client.Models.GenerateContentStream(withNotes(ctx, n), name, req.Contents, callConfig(req.Config))
		for resp, err := range stream {
			if err != nil {
				yield(nil, m.callError(ctx, name, err))
				return
			}
			if resp == nil {
				continue
			}
			n.fill(resp)
			if !yield(resp, nil) {
				return
			}
		}
	}
}

// callError turns a failed call's error into what the run reports: an
// *agent.ModelError for the API's refusals (with the models the key can
// use, for a model not found), the transport's error otherwise, wrapped so
// that a retry layer can still tell what it was.
func (m *Model) callError(ctx context.Context, model string, err error) error {
	var apiErr genai.APIError
	switch {
	case errors.As(err, &apiErr):
		e := &agent.ModelError{Model: model, API: apiErr}
		if apiErr.Code == http.StatusNotFound && ctx.Err() == nil {
			e.Available = m.available(ctx)
		}
		return e
	case ctx.Err() != nil:
		return fmt.Errorf("gemini: generate: %w", err)
	case errors.Is(err, io.ErrUnexpectedEOF), isNetError(err):
		return fmt.Errorf("the connection to the Gemini API failed: %w", err)
	}
	return fmt.Errorf("the answer of model %q could not be read: %w", model, err)
}

func isNetError(err error) bool {
	var netErr net.Error
	return errors.As(err, &netErr)
}

// listTimeout bounds the one ListModels call after a 404.
const listTimeout = 10 * time.Second

// available asks the API which models the key can use to generate text:
// one ListModels page, models named gemini-… that generate content and are
// not for speech, images, live audio or embeddings. It returns nil when
// the API does not answer.
func (m *Model) available(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, listTimeout)
	defer cancel()
	page, err := m.client.Models.List(ctx, &genai.ListModelsConfig{PageSize: 1000})
	if err != nil {
		return nil
	}
	var latest, others []string
	for _, md := range page.Items {
		name := strings.TrimPrefix(md.Name, "models/")
		if !slices.Contains(md.SupportedActions, "generateContent") || !strings.HasPrefix(name, "gemini-") || notForText(name) {
			continue
		}
		if strings.HasSuffix(name, "-latest") {
			latest = append(latest, name)
		} else {
			others = append(others, name)
		}
	}
	return append(latest, others...)
}

// notForText tells models whose names say they do not answer a coding
// agent in text.
func notForText(name string) bool {
	for _, w := range []string{"embedding", "tts", "image", "live", "audio", "robotics", "computer-use"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// callConfig copies cfg for one call. The SDK writes into the config it is
// given (the system instruction's role, the HTTP options' headers), and the
// caller's config may be shared between concurrent runs, so those parts are
// copied too.
func callConfig(cfg *genai.GenerateContentConfig) *genai.GenerateContentConfig {
	var c genai.GenerateContentConfig
	if cfg != nil {
		c = *cfg
	}
	// One attempt, one request: continuation would re-send the request on
	// its own, and retries belong to our retry layer.
	c.AutomaticContinuation = genai.Ptr(false)
	if c.SystemInstruction != nil {
		si := *c.SystemInstruction
		c.SystemInstruction = &si
	}
	if c.HTTPOptions != nil {
		h := *c.HTTPOptions
		h.Headers = h.Headers.Clone()
		h.RetryOptions = nil
		c.HTTPOptions = &h
	}
	return &c
}
