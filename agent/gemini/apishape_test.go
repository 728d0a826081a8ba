package gemini_test

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

const recitation = "The response was blocked because it may contain recited material."

// TestFinishMessageDroppedBySDK pins the reason for the adapter's tap:
// genai, on the Gemini API backend, drops a candidate's finishMessage. If
// this fails, the SDK carries it now, and tap.go can go.
func TestFinishMessageDroppedBySDK(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Finish(genai.FinishReasonRecitation, recitation, geminitest.Text("func")))
	c, err := genai.NewClient(t.Context(), &genai.ClientConfig{APIKey: "k", Backend: genai.BackendGeminiAPI,
		HTTPOptions: genai.HTTPOptions{BaseURL: srv.URL, APIVersion: "v1beta"}})
	if err != nil {
		t.Fatal(err)
	}
	var last *genai.Candidate
	for resp, err := range c.Models.GenerateContentStream(t.Context(), "m", genai.Text("hi"), nil) {
		if err != nil {
			t.Fatal(err)
		}
		last = resp.Candidates[0]
	}
	if last.FinishReason != genai.FinishReasonRecitation || last.FinishMessage != "" {
		t.Errorf("genai gave finish %q message %q; the adapter expects it to drop the message", last.FinishReason, last.FinishMessage)
	}
}

// TestFinishMessage: the adapter restores the finishMessage the SDK drops.
func TestFinishMessage(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t,
		geminitest.Finish(genai.FinishReasonRecitation, recitation, geminitest.Text("func"), geminitest.Text(" main")),
		geminitest.Finish(genai.FinishReasonSafety, ""),
	)
	m := newModel(t, srv)
	got, err := generate(t.Context(), m, &agent.Request{Contents: genai.Text("hi")})
	if err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1].Candidates[0]
	if last.FinishReason != genai.FinishReasonRecitation || last.FinishMessage != recitation {
		t.Errorf("finish %q message %q, want RECITATION with the API's message", last.FinishReason, last.FinishMessage)
	}
	if got[0].Candidates[0].FinishMessage != "" {
		t.Error("a chunk without a finish reason got a message")
	}
	// The next call's notes are its own.
	got, err = generate(t.Context(), m, &agent.Request{Contents: genai.Text("hi")})
	if err != nil {
		t.Fatal(err)
	}
	if c := got[len(got)-1].Candidates[0]; c.FinishReason != genai.FinishReasonSafety || c.FinishMessage != "" {
		t.Errorf("second call: finish %q message %q, want SAFETY without a message", c.FinishReason, c.FinishMessage)
	}
}

// TestFinishMessageOnAnyWire: the tap reads events split across reads and
// separated by CRLF, as the SDK's scanner does.
func TestFinishMessageOnAnyWire(t *testing.T) {
	t.Parallel()
	for _, sep := range []string{"\n\n", "\r\n\r\n"} {
		body := "data: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"a\"}],\"role\":\"model\"},\"index\":0}]}" + sep +
			"data: {\"candidates\":[{\"finishReason\":\"OTHER\",\"finishMessage\":\"Stopped: other.\",\"index\":0}]}" + sep
		client := &http.Client{Transport: roundTrip(func(r *http.Request) (*http.Response, error) {
			return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
				Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(body))), Request: r}, nil
		})}
		m, err := gemini.New(t.Context(), gemini.Config{APIKey: "k", BaseURL: "http://fake.invalid/", HTTPClient: client, Getenv: env(nil)})
		if err != nil {
			t.Fatal(err)
		}
		got, err := generate(t.Context(), m, &agent.Request{Contents: genai.Text("hi")})
		if err != nil {
			t.Fatal(err)
		}
		if c := got[len(got)-1].Candidates[0]; c.FinishMessage != "Stopped: other." {
			t.Errorf("separator %q: message %q", sep, c.FinishMessage)
		}
	}
}

type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestModelNotAvailable: a 404 for a retired model names the model and,
// from one ListModels call, the models the key can use.
func TestModelNotAvailable(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Retire("gemini-2.5-flash")
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: "k", BaseURL: srv.URL, Model: "gemini-2.5-flash", HTTPClient: srv.Client(), Getenv: env(nil)})
	if err != nil {
		t.Fatal(err)
	}
	_, err = generate(t.Context(), m, &agent.Request{Contents: genai.Text("hi")})
	var me *agent.ModelError
	if !errors.As(err, &me) || me.API.Code != 404 {
		t.Fatalf("err = %v, want a 404 ModelError", err)
	}
	want := []string{"gemini-flash-latest", "gemini-flash-lite-latest", "gemini-pro-latest", "gemini-3.5-flash", "gemini-3.5-flash-lite", "gemini-3.1-pro-preview"}
	if diff := cmp.Diff(want, me.Available); diff != "" {
		t.Errorf("available models (-want +got):\n%s", diff)
	}
	const msg = `model "gemini-2.5-flash" is not available to this API key: This model models/gemini-2.5-flash is no longer available to new users. ` +
		`Please update your code to use a newer model for the latest features and improvements; models it can use: ` +
		`gemini-flash-latest, gemini-flash-lite-latest, gemini-pro-latest, gemini-3.5-flash, gemini-3.5-flash-lite, gemini-3.1-pro-preview`
	if err.Error() != msg {
		t.Errorf("error:\n%s\nwant:\n%s", err, msg)
	}
	var rpcs []string
	for _, r := range srv.Requests() {
		rpcs = append(rpcs, r.RPC)
	}
	if diff := cmp.Diff([]string{"streamGenerateContent", "listModels"}, rpcs); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
	// Other errors make no ListModels call.
	srv.Push(geminitest.Overloaded())
	m2 := newModel(t, srv)
	_, err = generate(t.Context(), m2, &agent.Request{Contents: genai.Text("hi")})
	lists := 0
	for _, r := range srv.Requests() {
		if r.RPC == "listModels" {
			lists++
		}
	}
	if err == nil || lists != 1 {
		t.Errorf("after a 503: %v, %d ListModels calls in all; want an error and 1", err, lists)
	}
}

// TestFirstContact: with no model named, against an API that answers the
// retired 2.5 line 404 as it does for new keys, the call works.
func TestFirstContact(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("hello")))
	srv.Retire("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro")
	got, err := generate(t.Context(), newModel(t, srv), &agent.Request{Contents: genai.Text("hi")})
	if err != nil || len(got) == 0 || got[0].Text() != "hello" {
		t.Fatalf("generate = %v, %v; want hello", got, err)
	}
	for _, name := range []string{agent.DefaultModel, agent.DefaultFastModel, agent.DefaultStrongModel, agent.DefaultClassifierModel} {
		if strings.HasPrefix(name, "gemini-2.") || !strings.HasSuffix(name, "-latest") {
			t.Errorf("default model %q is not a -latest alias", name)
		}
	}
}
