package agent_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// fakeModel starts a fake Gemini server playing turns and returns a model
// that reaches it through the real genai SDK.
func fakeModel(t *testing.T, turns ...geminitest.Turn) (*geminitest.Server, agent.Model) {
	t.Helper()
	srv := geminitest.NewServer(t, turns...)
	return srv, modelAt(t, srv.URL)
}

// modelAt returns a model that reaches the Gemini API at baseURL.
func modelAt(t *testing.T, baseURL string) agent.Model {
	t.Helper()
	m, err := gemini.New(t.Context(), gemini.Config{APIKey: "test-key", BaseURL: baseURL, Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// sleeper records the waits of a retry layer instead of waiting.
type sleeper struct {
	mu    sync.Mutex
	slept []time.Duration
}

func (s *sleeper) Sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.slept = append(s.slept, d)
	return ctx.Err()
}

func (s *sleeper) Slept() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.slept...)
}

// half makes the jitter exactly half of its maximum.
func half() float64 { return 0.5 }

// generate runs one call of m to its end and returns the text it streamed
// (less what a retry voided), the retry events it reported and its error.
func generate(ctx context.Context, m agent.Model) (string, []agent.RetryInfo, error) {
	var (
		retries []agent.RetryInfo
		text    strings.Builder
	)
	req := &agent.Request{
		Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		Events: func(ev agent.Event) {
			if ev.Type == agent.EventRetry {
				retries = append(retries, *ev.Retry)
				if ev.Retry.Discard {
					text.Reset()
				}
			}
		},
	}
	for resp, err := range m.Generate(ctx, req) {
		if err != nil {
			return text.String(), retries, err
		}
		text.WriteString(resp.Text())
	}
	return text.String(), retries, nil
}

// ignoreRetryError leaves the error text out of compared retry events; the
// tests check it separately.
var ignoreRetryError = cmpopts.IgnoreFields(agent.RetryInfo{}, "Error")

func TestRetry(t *testing.T) {
	t.Parallel()
	const (
		s    = time.Second
		ms   = time.Millisecond
		over = "model overloaded"
		rate = "rate limit reached"
		srv  = "server error"
	)
	var (
		fail  = func(code int) geminitest.Turn { return geminitest.Turn{Status: code} }
		ok    = geminitest.Reply(geminitest.Text("hello"))
		empty = func(reason string, at int) agent.RetryInfo {
			return agent.RetryInfo{Attempt: at, Delay: time.Duration(at) * 500 * ms, Reason: reason, Discard: true}
		}
	)
	tests := []struct {
		name  string
		opts  agent.RetryOptions // Rand and Sleep are set by the test
		turns []geminitest.Turn

		wantText     string
		wantRetries  []agent.RetryInfo // the waits too, as slept
		wantRequests int
		wantErr      string // a part of the error's text; "" means no error
		wantCode     int    // the genai.APIError code the error wraps
		wantIs       error  // an error the error wraps
	}{
		{
			name:         "429 then success",
			turns:        []geminitest.Turn{fail(429), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 2200 * ms, Reason: rate}},
			wantRequests: 2,
		},
		{
			name:         "429 with RetryInfo waits the server's delay",
			turns:        []geminitest.Turn{geminitest.QuotaExceeded("gemini-flash-latest", "7s", geminitest.PerMinuteQuota), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 7 * s, Reason: rate}},
			wantRequests: 2,
		},
		{
			name:         "the delay a 429's message asks for",
			turns:        []geminitest.Turn{{Status: 429, ErrMessage: geminitest.QuotaMessage + " Please retry in 27.5s."}, ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 27500 * ms, Reason: rate}},
			wantRequests: 2,
		},
		{
			name:         "a per-minute quota without a delay waits a minute",
			turns:        []geminitest.Turn{geminitest.QuotaExceeded("gemini-flash-latest", "", geminitest.TokensQuota), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: time.Minute, Reason: rate}},
			wantRequests: 2,
		},
		{
			name: "a used-up daily quota stops at once",
			turns: []geminitest.Turn{
				geminitest.QuotaExceeded("gemini-flash-latest", "27s", geminitest.PerMinuteQuota, geminitest.PerDayQuota), ok,
			},
			wantRequests: 1,
			wantErr:      `the daily quota of this API key for model "gemini-flash-latest" is used up (` + geminitest.PerMinuteQuota + ", " + geminitest.PerDayQuota + ")",
			wantCode:     429,
		},
		{
			name:         "the server's delay is capped at 5 minutes",
			turns:        []geminitest.Turn{{Status: 503, RetryAfter: "900"}, ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 5 * time.Minute, Reason: over}},
			wantRequests: 2,
		},
		{
			name:     "500, overloaded 503 then success",
			turns:    []geminitest.Turn{fail(500), geminitest.Overloaded(), ok},
			wantText: "hello",
			wantRetries: []agent.RetryInfo{
				{Attempt: 1, Delay: 2200 * ms, Reason: srv},
				{Attempt: 2, Delay: 4400 * ms, Reason: over},
			},
			wantRequests: 3,
		},
		{
			name:     "408, 502, 504 then success",
			opts:     agent.RetryOptions{Jitter: -1},
			turns:    []geminitest.Turn{fail(408), fail(502), fail(504), ok},
			wantText: "hello",
			wantRetries: []agent.RetryInfo{
				{Attempt: 1, Delay: 2 * s, Reason: "model call timed out"}, {Attempt: 2, Delay: 4 * s, Reason: srv},
				{Attempt: 3, Delay: 8 * s, Reason: "model call timed out"},
			},
			wantRequests: 4,
		},
		{
			name:         "400 is not retried",
			turns:        []geminitest.Turn{fail(400), ok},
			wantRequests: 1,
			wantErr:      "the Gemini API refused the request to model \"gemini-flash-latest\" (400 INVALID_ARGUMENT): Bad Request",
			wantCode:     400,
		},
		{
			name:         "403 is not retried",
			turns:        []geminitest.Turn{fail(403), ok},
			wantRequests: 1,
			wantErr:      "the Gemini API refused the credentials (403 PERMISSION_DENIED): Forbidden",
			wantCode:     403,
		},
		{
			name:         "404 is not retried",
			turns:        []geminitest.Turn{fail(404), ok},
			wantRequests: 2, // and one ListModels
			wantErr:      `model "gemini-flash-latest" is not available to this API key: Not Found; models it can use: gemini-flash-latest`,
			wantCode:     404,
		},
		{
			name: "a stream cut after a chunk is retried, the chunk voided",
			turns: []geminitest.Turn{
				{Chunks: []geminitest.Chunk{geminitest.Text("par"), geminitest.Text("tial")}, CutAfter: 1},
				ok,
			},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 2200 * ms, Reason: "answer cut off", Discard: true}},
			wantRequests: 2,
		},
		{
			name: "an overloaded event after a chunk is retried, the chunk voided",
			turns: []geminitest.Turn{
				{Chunks: []geminitest.Chunk{geminitest.Text("par")}, MidStreamError: 503, ErrMessage: geminitest.OverloadedMessage},
				ok,
			},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 2200 * ms, Reason: over, Discard: true}},
			wantRequests: 2,
		},
		{
			name: "a 400 event after a chunk is not retried",
			turns: []geminitest.Turn{
				{Chunks: []geminitest.Chunk{geminitest.Text("par")}, MidStreamError: 400, ErrMessage: "Request contains an invalid argument."},
				ok,
			},
			wantText:     "par",
			wantRequests: 1,
			wantErr:      "Request contains an invalid argument.",
			wantCode:     400,
		},
		{
			name:         "a stream cut before any chunk is retried",
			turns:        []geminitest.Turn{{CutAfter: 1}, ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 2200 * ms, Reason: "connection failed"}},
			wantRequests: 2,
		},
		{
			name:         "an error event before any chunk is retried",
			turns:        []geminitest.Turn{{MidStreamError: 503}, ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 2200 * ms, Reason: over}},
			wantRequests: 2,
		},
		{
			name:  "attempts run out",
			opts:  agent.RetryOptions{Attempts: 3},
			turns: []geminitest.Turn{fail(503), fail(503), fail(503), ok},
			wantRetries: []agent.RetryInfo{
				{Attempt: 1, Delay: 2200 * ms, Reason: over},
				{Attempt: 2, Delay: 4400 * ms, Reason: over},
			},
			wantRequests: 3,
			wantErr:      "(gave up after 3 attempts)",
			wantCode:     503,
		},
		{
			name: "ten attempts by default, the delay capped at 30s",
			turns: []geminitest.Turn{
				geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(),
				geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(), geminitest.Overloaded(), ok,
			},
			wantRetries: []agent.RetryInfo{
				{Attempt: 1, Delay: 2200 * ms, Reason: over}, {Attempt: 2, Delay: 4400 * ms, Reason: over},
				{Attempt: 3, Delay: 8800 * ms, Reason: over}, {Attempt: 4, Delay: 17600 * ms, Reason: over},
				{Attempt: 5, Delay: 33 * s, Reason: over}, {Attempt: 6, Delay: 33 * s, Reason: over},
				{Attempt: 7, Delay: 33 * s, Reason: over}, {Attempt: 8, Delay: 33 * s, Reason: over},
				{Attempt: 9, Delay: 33 * s, Reason: over},
			},
			wantRequests: 10,
			wantErr:      `model "gemini-flash-latest" is overloaded (503 UNAVAILABLE): ` + geminitest.OverloadedMessage + " (gave up after 10 attempts)",
			wantCode:     503,
		},
		{
			name:     "the delay doubles up to MaxDelay",
			opts:     agent.RetryOptions{Attempts: 6, InitialDelay: 500 * ms, MaxDelay: 3 * s, Jitter: -1},
			turns:    []geminitest.Turn{fail(500), fail(500), fail(500), fail(500), fail(500), ok},
			wantText: "hello",
			wantRetries: []agent.RetryInfo{
				{Attempt: 1, Delay: 500 * ms, Reason: srv}, {Attempt: 2, Delay: 1 * s, Reason: srv},
				{Attempt: 3, Delay: 2 * s, Reason: srv}, {Attempt: 4, Delay: 3 * s, Reason: srv}, {Attempt: 5, Delay: 3 * s, Reason: srv},
			},
			wantRequests: 6,
		},
		{
			name:         "jitter is a fraction of the capped delay",
			opts:         agent.RetryOptions{InitialDelay: 10 * s, MaxDelay: 4 * s, Jitter: 0.5},
			turns:        []geminitest.Turn{fail(429), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{{Attempt: 1, Delay: 5 * s, Reason: rate}},
			wantRequests: 2,
		},
		{
			name:         "an empty STOP is asked again",
			turns:        []geminitest.Turn{geminitest.Reply(), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{empty("empty answer", 1)},
			wantRequests: 2,
		},
		{
			name:         "only thoughts and a signature is empty",
			turns:        []geminitest.Turn{geminitest.Reply(geminitest.Thought("Hmm."), geminitest.SignatureOnly("sig")), ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{empty("empty answer", 1)},
			wantRequests: 2,
		},
		{
			name:         "no finish reason and nothing in it is empty",
			turns:        []geminitest.Turn{{Chunks: []geminitest.Chunk{{EmptyCandidates: true}}}, ok},
			wantText:     "hello",
			wantRetries:  []agent.RetryInfo{empty("empty answer", 1)},
			wantRequests: 2,
		},
		{
			name:         "empty answers run out: the last is the answer",
			turns:        []geminitest.Turn{geminitest.Reply(), geminitest.Reply(), geminitest.Reply(), ok},
			wantRetries:  []agent.RetryInfo{empty("empty answer", 1), empty("empty answer", 2)},
			wantRequests: 3,
		},
		{
			name:         "text with a trailing signature is an answer",
			turns:        []geminitest.Turn{geminitest.Reply(geminitest.Text("hi"), geminitest.SignatureOnly("sig")), ok},
			wantText:     "hi",
			wantRequests: 1,
		},
		{
			name:         "MAX_TOKENS without parts is an answer",
			turns:        []geminitest.Turn{geminitest.Finish(genai.FinishReasonMaxTokens, ""), ok},
			wantRequests: 1,
		},
		{
			name:         "a blocked prompt is an answer",
			turns:        []geminitest.Turn{geminitest.Blocked("SAFETY", "The prompt is unsafe."), ok},
			wantRequests: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fakeModel(t, tt.turns...)
			srv.SetModels(geminitest.ModelInfo{Name: "gemini-flash-latest", Methods: []string{"generateContent"}})
			var sl sleeper
			opts := tt.opts
			opts.Rand, opts.Sleep = half, sl.Sleep
			text, retries, err := generate(t.Context(), agent.WithRetry(m, opts))

			if text != tt.wantText {
				t.Errorf("text = %q, want %q", text, tt.wantText)
			}
			if diff := cmp.Diff(tt.wantRetries, retries, ignoreRetryError); diff != "" {
				t.Errorf("retry events (-want +got):\n%s", diff)
			}
			for _, r := range retries {
				if r.Error == "" || strings.Contains(r.Error, "Details:") {
					t.Errorf("retry event of attempt %d has error %q, want a sentence", r.Attempt, r.Error)
				}
			}
			var wantSlept []time.Duration
			for _, r := range tt.wantRetries {
				wantSlept = append(wantSlept, r.Delay)
			}
			if diff := cmp.Diff(wantSlept, sl.Slept()); diff != "" {
				t.Errorf("sleeps (-want +got):\n%s", diff)
			}
			if n := len(srv.Requests()); n != tt.wantRequests {
				t.Errorf("requests = %d, want %d", n, tt.wantRequests)
			}
			checkErr(t, err, tt.wantErr, tt.wantCode, tt.wantIs)
		})
	}
}

// checkErr checks that err contains want (or is nil for ""), wraps a
// genai.APIError with code (when non-zero), and wraps is (when non-nil).
func checkErr(t *testing.T, err error, want string, code int, is error) {
	t.Helper()
	if want == "" {
		if err != nil {
			t.Errorf("error = %v, want none", err)
		}
		return
	}
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error = %v, want one containing %q", err, want)
		return
	}
	if code != 0 {
		var apiErr genai.APIError
		if !errors.As(err, &apiErr) || apiErr.Code != code {
			t.Errorf("error = %v, want one wrapping a genai.APIError with code %d", err, code)
		}
	}
	if is != nil && !errors.Is(err, is) {
		t.Errorf("error = %v, want one wrapping %v", err, is)
	}
}
