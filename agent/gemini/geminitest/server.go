// Package geminitest is a fake Gemini API server for tests, in the manner
// of net/http/httptest. It speaks the REST and SSE wire format the genai
// SDK expects and plays scripted turns, including faults (error statuses,
// cut streams, malformed events, mid-stream errors, slow answers), so that
// tests reach the model through the real SDK without the network.
//
// Endpoints (Gemini API and Vertex AI path shapes):
//
//	POST /v1beta/models/{model}:streamGenerateContent?alt=sse
//	POST /v1beta/models/{model}:generateContent
//	POST /v1beta/models/{model}:countTokens
//	GET  /v1beta/models (ListModels, one page)
//	POST /v1beta1/[projects/{p}/locations/{l}/]publishers/google/models/{model}:…
//
// Each generate request consumes the next scripted turn; countTokens,
// ListModels and requests for retired models (see [Server.Retire]) do not.
package geminitest

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"
)

// ErrNoTurn is recorded when a generate request arrives and no scripted
// turn is left; the client gets a 500 with its message.
var ErrNoTurn = errors.New("geminitest: no scripted turn left")

// A Request is one request the server received, with its body decoded.
type Request struct {
	Method string // HTTP method
	Path   string // URL path, such as "/v1beta/models/gemini-2.5-flash:generateContent"
	// RPC is "streamGenerateContent", "generateContent", "countTokens" or
	// another method name, "listModels" for ListModels; "" when the path is
	// not a model method.
	RPC    string
	Model  string // model name from the path, such as "gemini-2.5-flash"
	Stream bool   // RPC is streamGenerateContent
	Header http.Header
	Body   []byte

	// The decoded body. The request's JSON uses the same camelCase names
	// as genai's struct tags.
	Contents          []*genai.Content
	SystemInstruction *genai.Content
	Tools             []*genai.Tool
	ToolConfig        *genai.ToolConfig
	GenerationConfig  json.RawMessage
}

// Server is a fake Gemini API server. It is safe for concurrent use.
type Server struct {
	// URL is the base URL, for genai.HTTPOptions.BaseURL.
	URL string

	srv       *httptest.Server
	done      chan struct{} // closed by Close; ends scripted waits
	closeOnce sync.Once

	mu       sync.Mutex
	turns    []Turn
	requests []Request
	errs     []error
	apiKey   string // "" accepts any non-empty key
	served   int    // turns consumed, numbers the response ids
	models   []ModelInfo
	retired  map[string]bool
}

// ModelInfo is a model as ListModels describes it.
type ModelInfo struct {
	Name    string   // without "models/"
	Methods []string // supportedGenerationMethods
}

// DefaultModels is what ListModels answers unless [Server.SetModels] said
// otherwise: current models and aliases, and two that generate no text.
var DefaultModels = []ModelInfo{
	{"gemini-3.5-flash", []string{"generateContent", "countTokens"}},
	{"gemini-3.5-flash-lite", []string{"generateContent", "countTokens"}},
	{"gemini-3.1-pro-preview", []string{"generateContent", "countTokens"}},
	{"gemini-flash-latest", []string{"generateContent", "countTokens"}},
	{"gemini-flash-lite-latest", []string{"generateContent", "countTokens"}},
	{"gemini-pro-latest", []string{"generateContent", "countTokens"}},
	{"gemini-embedding-001", []string{"embedContent", "countTextTokens"}},
	{"imagen-4.0-generate-001", []string{"predict"}},
}

// NewServer starts a server that plays turns in order. With a non-nil t
// the server is closed (and any recorded errors logged) when the test ends;
// with a nil t the caller must call Close.
func NewServer(t testing.TB, turns ...Turn) *Server {
	s := &Server{turns: append([]Turn(nil), turns...), done: make(chan struct{}), models: DefaultModels}
	s.srv = httptest.NewServer(http.HandlerFunc(s.serve))
	s.URL = s.srv.URL
	if t != nil {
		t.Cleanup(func() {
			s.Close()
			for _, err := range s.Errors() {
				t.Logf("%v", err)
			}
		})
	}
	return s
}

// Close ends scripted waits, closes all connections and shuts the server
// down. It may be called more than once.
func (s *Server) Close() {
	s.closeOnce.Do(func() { close(s.done) })
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Client returns an HTTP client for the server's connections.
func (s *Server) Client() *http.Client { return s.srv.Client() }

// Push appends scripted turns.
func (s *Server) Push(turns ...Turn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.turns = append(s.turns, turns...)
}

// RequireAPIKey makes the server accept only key in x-goog-api-key. By
// default any non-empty key is accepted.
func (s *Server) RequireAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// SetModels sets what ListModels answers.
func (s *Server) SetModels(models ...ModelInfo) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = append([]ModelInfo(nil), models...)
}

// Retire makes generate requests naming one of models answer 404
// NOT_FOUND "no longer available to new users", as the API answers new
// API keys for retired models (the 2.5 line since mid-2026). Such
// requests consume no turn; ListModels leaves the models out.
func (s *Server) Retire(models ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.retired == nil {
		s.retired = make(map[string]bool)
	}
	for _, m := range models {
		s.retired[m] = true
	}
}

func (s *Server) isRetired(model string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.retired[model]
}

// Requests returns every request received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Remaining returns the number of scripted turns not yet consumed.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.turns)
}

// Errors returns the failures the server saw that were not scripted: failed
// Checks, requests with no turn left (ErrNoTurn), bad paths, keys or bodies.
func (s *Server) Errors() []error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]error(nil), s.errs...)
}

func (s *Server) record(req Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
}

// next pops the next turn and numbers it.
func (s *Server) next() (Turn, int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.turns) == 0 {
		return Turn{}, 0, false
	}
	t := s.turns[0]
	s.turns = s.turns[1:]
	s.served++
	return t, s.served, true
}

// reject records err and answers it as an API error.
func (s *Server) reject(w http.ResponseWriter, code int, err error) {
	s.fail(err)
	writeError(w, code, err.Error(), "", nil)
}

func (s *Server) fail(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.errs = append(s.errs, err)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return // the client went away
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	req.Model, req.RPC = parsePath(r.URL.Path)
	req.Stream = req.RPC == "streamGenerateContent"
	listing := r.Method == http.MethodGet && isModelsPath(r.URL.Path)
	if listing {
		req.RPC = "listModels"
	}
	decodeErr := req.decode()
	s.record(req)

	if listing {
		if s.authorize(w, r) {
			s.listModels(w)
		}
		return
	}
	switch {
	case r.Method != http.MethodPost || req.RPC == "":
		s.reject(w, http.StatusNotFound, fmt.Errorf("geminitest: no such method: %s %s", r.Method, r.URL.Path))
		return
	case !s.authorize(w, r):
		return
	case decodeErr != nil:
		s.reject(w, http.StatusBadRequest, fmt.Errorf("geminitest: invalid JSON payload received: %w", decodeErr))
		return
	}
	switch req.RPC {
	case "countTokens":
		w.Header().Set("Content-Type", "application/json; charset=UTF-8")
		fmt.Fprintf(w, "{\"totalTokens\": %d}\n", estimateTokens(promptBytes(body)))
	case "streamGenerateContent", "generateContent":
		if req.Stream && r.URL.Query().Get("alt") != "sse" {
			s.reject(w, http.StatusBadRequest, errors.New("geminitest: streamGenerateContent needs alt=sse"))
			return
		}
		if s.isRetired(req.Model) {
			writeError(w, http.StatusNotFound, RetiredMessage(req.Model), "", nil)
			return
		}
		t, n, ok := s.next()
		if !ok {
			s.reject(w, http.StatusInternalServerError, ErrNoTurn)
			return
		}
		s.play(w, r, req, t, "geminitest-"+strconv.Itoa(n))
	default:
		s.reject(w, http.StatusNotFound, fmt.Errorf("geminitest: method %q not implemented", req.RPC))
	}
}

// authorize checks the API key (or, as Vertex AI with a project takes,
// a bearer token) and answers the request when it fails.
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) bool {
	key := r.Header.Get("x-goog-api-key")
	s.mu.Lock()
	want := s.apiKey
	s.mu.Unlock()
	switch {
	case key == "" && r.Header.Get("Authorization") != "":
		return true
	case key == "":
		// The messages are the real API's.
		s.fail(errors.New("geminitest: request without API key"))
		writeError(w, http.StatusForbidden, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", "", nil)
		return false
	case want != "" && key != want:
		s.fail(fmt.Errorf("geminitest: wrong API key %q", key))
		writeError(w, http.StatusBadRequest, "API key not valid. Please pass a valid API key.", "", nil)
		return false
	}
	return true
}

// isModelsPath tells the ListModels path of the Gemini API.
func isModelsPath(p string) bool {
	return strings.HasPrefix(p, "/v1") && strings.HasSuffix(strings.TrimSuffix(p, "/"), "/models") && strings.Count(p, "/") <= 3
}

// listModels answers ListModels with one page of the server's models.
func (s *Server) listModels(w http.ResponseWriter) {
	s.mu.Lock()
	type model struct {
		Name                       string   `json:"name"`
		DisplayName                string   `json:"displayName"`
		SupportedGenerationMethods []string `json:"supportedGenerationMethods"`
	}
	var out struct {
		Models []model `json:"models"`
	}
	for _, m := range s.models {
		if !s.retired[m.Name] {
			out.Models = append(out.Models, model{"models/" + m.Name, m.Name, m.Methods})
		}
	}
	s.mu.Unlock()
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(out)
}

// parsePath splits ".../models/{model}:{rpc}" under an API version.
func parsePath(p string) (model, rpc string) {
	i := strings.Index(p, "/models/")
	if i < 0 || !strings.HasPrefix(p, "/v1") {
		return "", ""
	}
	model, rpc, ok := strings.Cut(p[i+len("/models/"):], ":")
	if !ok || model == "" || strings.Contains(model, "/") {
		return "", ""
	}
	return model, rpc
}

func (r *Request) decode() error {
	if len(r.Body) == 0 {
		return nil
	}
	var b struct {
		Contents          []*genai.Content  `json:"contents"`
		SystemInstruction *genai.Content    `json:"systemInstruction"`
		Tools             []*genai.Tool     `json:"tools"`
		ToolConfig        *genai.ToolConfig `json:"toolConfig"`
		GenerationConfig  json.RawMessage   `json:"generationConfig"`
	}
	if err := json.Unmarshal(r.Body, &b); err != nil {
		return err
	}
	r.Contents, r.SystemInstruction, r.Tools = b.Contents, b.SystemInstruction, b.Tools
	r.ToolConfig, r.GenerationConfig = b.ToolConfig, b.GenerationConfig
	return nil
}

// SystemText is the text of the request's system instruction.
func (r Request) SystemText() string {
	var b strings.Builder
	if r.SystemInstruction != nil {
		for _, p := range r.SystemInstruction.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// ToolNames are the names of the functions the request declares, sorted.
func (r Request) ToolNames() []string {
	var names []string
	for _, t := range r.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	slices.Sort(names)
	return names
}
