package geminitest_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// apiError runs one streaming call and returns the APIError it ended with
// and the chunks before it.
func apiError(t *testing.T, srv *geminitest.Server) (int, genai.APIError) {
	t.Helper()
	got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation))
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want a genai.APIError", err)
	}
	return len(got), apiErr
}

func TestErrors(t *testing.T) {
	t.Parallel()
	retryInfo := []map[string]any{{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "7s"}}
	for _, tc := range []struct {
		name   string
		turn   geminitest.Turn
		chunks int
		want   genai.APIError
	}{
		{"429", geminitest.Turn{Status: 429, ErrMessage: "quota exceeded", RetryAfter: "7"}, 0,
			genai.APIError{Code: 429, Message: "quota exceeded", Status: "RESOURCE_EXHAUSTED", Details: retryInfo}},
		{"503 default message", geminitest.Turn{Status: 503}, 0,
			genai.APIError{Code: 503, Message: "Service Unavailable", Status: "UNAVAILABLE"}},
		{"mid-stream", geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("a"), geminitest.Text("b")}, MidStreamError: 500, ErrMessage: "boom"}, 2,
			genai.APIError{Code: 500, Message: "boom", Status: "INTERNAL"}},
		{"check", geminitest.Turn{Check: func(geminitest.Request) error { return errors.New("no system instruction") }}, 0,
			genai.APIError{Code: 400, Message: "no system instruction", Status: "INVALID_ARGUMENT"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, tc.turn)
			chunks, got := apiError(t, srv)
			if chunks != tc.chunks {
				t.Errorf("got %d chunks before the error, want %d", chunks, tc.chunks)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("APIError (-want +got):\n%s", diff)
			}
		})
	}
}

func TestUnscriptedFailuresRecorded(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	_, got := apiError(t, srv)
	if got.Code != 500 || got.Message != geminitest.ErrNoTurn.Error() || got.Status != "INTERNAL" {
		t.Errorf("APIError = %+v, want 500 %q", got, geminitest.ErrNoTurn)
	}
	srv.Push(geminitest.Turn{Check: func(geminitest.Request) error { return errors.New("bad request") }})
	apiError(t, srv)
	errs := srv.Errors()
	if len(errs) != 2 || !errors.Is(errs[0], geminitest.ErrNoTurn) || errs[1].Error() != "bad request" {
		t.Errorf("Errors() = %v, want [ErrNoTurn, bad request]", errs)
	}
}

func TestStreamFaults(t *testing.T) {
	t.Parallel()
	three := []geminitest.Chunk{geminitest.Text("a"), geminitest.Text("b"), geminitest.Text("c")}
	for _, tc := range []struct {
		name    string
		turn    geminitest.Turn
		chunks  int
		errText string
	}{
		{"cut", geminitest.Turn{Chunks: three, CutAfter: 2}, 2, "unexpected EOF"},
		{"cut after the last chunk", geminitest.Turn{Chunks: three, CutAfter: 9}, 3, "unexpected EOF"},
		{"malformed", geminitest.Turn{Chunks: three, Malformed: true}, 3, "error unmarshalling"},
		{"raw keep-alive", geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("a"), {Raw: "{}\n\n: keepalive"}}}, 2, "invalid stream chunk"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, tc.turn)
			got, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation))
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("err = %v, want one containing %q", err, tc.errText)
			}
			if len(got) != tc.chunks {
				t.Errorf("got %d chunks before the error, want %d", len(got), tc.chunks)
			}
		})
	}
}

func TestUnaryFaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		turn    geminitest.Turn
		errText string
	}{
		{"cut", geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("abc")}, CutAfter: 1}, "unexpected EOF"},
		{"malformed", geminitest.Turn{Malformed: true}, "unexpected end of JSON input"},
		{"error", geminitest.Turn{MidStreamError: 504}, "DEADLINE_EXCEEDED"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, tc.turn)
			_, err := newClient(t, srv).Models.GenerateContent(t.Context(), model, genai.Text("hi"), nil)
			if err == nil || !strings.Contains(err.Error(), tc.errText) {
				t.Errorf("err = %v, want one containing %q", err, tc.errText)
			}
		})
	}
}

// TestDelayCancelled cancels a call while the server waits out its delay.
func TestDelayCancelled(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv := geminitest.NewServer(t, geminitest.Turn{
		Delay:  time.Hour,
		Chunks: []geminitest.Chunk{geminitest.Text("too late")},
		Check:  func(geminitest.Request) error { close(arrived); return nil },
	})
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-arrived
		cancel()
	}()
	_, err := collect(newClient(t, srv).Models.GenerateContentStream(ctx, model, genai.Text("hi"), noContinuation))
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestCloseEndsDelay closes the server while a request waits out its delay.
func TestCloseEndsDelay(t *testing.T) {
	t.Parallel()
	arrived := make(chan struct{})
	srv := geminitest.NewServer(nil, geminitest.Turn{
		Delay: time.Hour,
		Check: func(geminitest.Request) error { close(arrived); return nil },
	})
	go func() {
		<-arrived
		srv.Close()
	}()
	if _, err := collect(newClient(t, srv).Models.GenerateContentStream(t.Context(), model, genai.Text("hi"), noContinuation)); err == nil {
		t.Error("call to a closed server succeeded")
	}
	srv.Close()
}
