package agent_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// TestRetryNeedsSomeoneToTell: a call that streamed part of its answer is
// tried again only when the layer can tell the consumer to drop that part.
func TestRetryNeedsSomeoneToTell(t *testing.T) {
	t.Parallel()
	srv, m := fakeModel(t,
		geminitest.Turn{Chunks: []geminitest.Chunk{geminitest.Text("par")}, MidStreamError: 503},
		geminitest.Reply(geminitest.Text("hello")),
	)
	var sl sleeper
	var text strings.Builder
	var err error
	req := &agent.Request{Contents: genai.Text("hi")} // no Events
	for resp, e := range agent.WithRetry(m, agent.RetryOptions{Sleep: sl.Sleep}).Generate(t.Context(), req) {
		if e != nil {
			err = e
			break
		}
		text.WriteString(resp.Text())
	}
	if text.String() != "par" || err == nil || len(srv.Requests()) != 1 || len(sl.Slept()) != 0 {
		t.Errorf("text %q, error %v, %d requests, waits %v; want the partial text, the error, one request, no wait",
			text.String(), err, len(srv.Requests()), sl.Slept())
	}
}

// TestRetryServerClosedConnection has a proxy in front of the fake server
// close the first connection without answering.
func TestRetryServerClosedConnection(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Text("hello")))
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var closed atomic.Int32
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if closed.Add(1) == 1 {
			io.Copy(io.Discard, r.Body) // so that closing sends FIN, not RST
			if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
				conn.Close()
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(front.Close)

	var sl sleeper
	m := agent.WithRetry(modelAt(t, front.URL), agent.RetryOptions{Rand: half, Sleep: sl.Sleep})
	text, retries, err := generate(t.Context(), m)
	if err != nil || text != "hello" {
		t.Fatalf("generate = %q, %v; want hello", text, err)
	}
	if diff := cmp.Diff([]agent.RetryInfo{{Attempt: 1, Delay: 2200 * time.Millisecond, Reason: "connection failed"}}, retries, ignoreRetryError); diff != "" {
		t.Errorf("retry events (-want +got):\n%s", diff)
	}
	if n := closed.Load(); n != 2 {
		t.Errorf("connections to the proxy = %d, want 2", n)
	}
}

// failing is a scripted model whose calls fail with errs in turn, then
// answer "ok".
type failing struct {
	mu    sync.Mutex
	errs  []error
	calls int
}

func (f *failing) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		f.mu.Lock()
		f.calls++
		var err error
		if len(f.errs) > 0 {
			err, f.errs = f.errs[0], f.errs[1:]
		}
		f.mu.Unlock()
		if err != nil {
			yield(nil, err)
			return
		}
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText("ok", genai.RoleModel)}}}, nil)
	}
}

// TestRetryTransportErrors covers failures the fake server cannot make
// happen on demand.
func TestRetryTransportErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		err   error
		retry bool
	}{
		{"connection reset", fmt.Errorf("gemini: generate: %w", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}), true},
		{"connection refused", &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}}, true},
		{"closed without an answer", &url.Error{Op: "Post", URL: "http://x", Err: io.EOF}, true},
		{"cut stream", fmt.Errorf("gemini: generate: %w", io.ErrUnexpectedEOF), true},
		{"attempt timed out", &url.Error{Op: "Post", URL: "http://x", Err: context.DeadlineExceeded}, true},
		{"unknown host", &url.Error{Op: "Post", URL: "http://x", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "x", IsNotFound: true}}}, false},
		{"cancelled", fmt.Errorf("gemini: generate: %w", context.Canceled), false},
		{"bad answer", errors.New("gemini: generate: invalid stream chunk"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := &failing{errs: []error{tt.err}}
			var sl sleeper
			text, _, err := generate(t.Context(), agent.WithRetry(f, agent.RetryOptions{Sleep: sl.Sleep}))
			retried := f.calls == 2 && text == "ok" && err == nil
			if retried != tt.retry {
				t.Errorf("calls = %d, text %q, error %v; want retried = %v", f.calls, text, err, tt.retry)
			}
			if !tt.retry && !errors.Is(err, tt.err) {
				t.Errorf("error = %v, want %v itself", err, tt.err)
			}
		})
	}
}

func TestRetryStopsWhenCancelledDuringBackoff(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// sleep is the retry layer's Sleep hook; nil means its own timer.
		sleep func(ctx context.Context, d time.Duration) error
	}{
		{"own timer", nil},
		{"sleep hook", (&sleeper{}).Sleep},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fakeModel(t, geminitest.Turn{Status: 503}, geminitest.Reply(geminitest.Text("too late")))
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			req := &agent.Request{
				Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
				// The retry event comes just before the wait: cancel there.
				Events: func(agent.Event) { cancel() },
			}
			m = agent.WithRetry(m, agent.RetryOptions{InitialDelay: time.Hour, Sleep: tt.sleep})
			var got []error
			for _, err := range m.Generate(ctx, req) {
				got = append(got, err)
			}
			if len(got) != 1 || !errors.Is(got[0], context.Canceled) {
				t.Errorf("yielded %v, want one error wrapping context.Canceled", got)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("requests = %d, want 1", n)
			}
		})
	}
}

func TestRetryEventsOnRunStream(t *testing.T) {
	t.Parallel()
	_, m := fakeModel(t,
		geminitest.Turn{Status: 429, RetryAfter: "3"},
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})),
	)
	var sl sleeper
	cfg := agent.Config{Model: agent.WithRetry(m, agent.RetryOptions{Sleep: sl.Sleep})}
	var (
		retries []agent.Event
		last    agent.Event
	)
	for ev, err := range agent.Run(t.Context(), cfg, agent.Task{Prompt: "go"}) {
		if err != nil {
			t.Fatalf("run: %v", err)
		}
		if ev.Type == agent.EventRetry {
			retries = append(retries, ev)
		}
		last = ev
	}
	if len(retries) != 1 {
		t.Fatalf("retry events = %d, want 1", len(retries))
	}
	ev := retries[0]
	if diff := cmp.Diff(&agent.RetryInfo{Attempt: 1, Delay: 3 * time.Second, Reason: "rate limit reached"}, ev.Retry, ignoreRetryError); diff != "" {
		t.Errorf("retry (-want +got):\n%s", diff)
	}
	if !strings.Contains(ev.Retry.Error, "429") || ev.RunID == "" || ev.Turn != 1 {
		t.Errorf("retry event = %+v, want the 429, the run id and turn 1", ev)
	}
	if last.Type != agent.EventRunEnd || last.End.Reason != agent.StopGoal || last.End.Result != "done" {
		t.Errorf("last event = %+v, want run_end with goal and result done", last)
	}
}
