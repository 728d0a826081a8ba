package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"

	"google.golang.org/genai"
)

// RetryOptions configures [WithRetry]. The zero value gives 10 attempts,
// delays of 2s, 4s, 8s, 16s, then 30s, with up to 20% jitter, and 3
// attempts for empty answers, as Gemini CLI does.
type RetryOptions struct {
	// Attempts is the number of attempts in total, the first included,
	// for calls that fail; 0 or less means 10.
	Attempts int
	// InitialDelay is the wait after the first failure; it doubles with
	// each further failure. 0 or less means 2s.
	InitialDelay time.Duration
	// MaxDelay caps the doubled delay (before jitter); 0 or less means 30s.
	MaxDelay time.Duration
	// Jitter is the fraction of the delay added at random, so that clients
	// that failed together do not retry together. 0 means 0.2; a negative
	// value means none.
	Jitter float64
	// EmptyAttempts is the number of attempts in total for a call whose
	// answer ends with nothing in it; 0 or less means 3. The wait before
	// attempt n+1 is n times half a second.
	EmptyAttempts int
	// Rand returns a number in [0, 1) for the jitter; nil means
	// math/rand/v2's Float64.
	Rand func() float64
	// Sleep waits d or until ctx ends, returning ctx's error in that case;
	// nil means a timer. Tests pass a fake clock's.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retry defaults, and the longest server-given delay honoured.
const (
	defaultAttempts      = 10
	defaultInitialDelay  = 2 * time.Second
	defaultMaxDelay      = 30 * time.Second
	defaultJitter        = 0.2
	defaultEmptyAttempts = 3
	emptyDelay           = 500 * time.Millisecond
	maxServerDelay       = 5 * time.Minute
	// perMinuteDelay is the wait after a per-minute quota error that says
	// no delay of its own.
	perMinuteDelay = time.Minute
)

// WithRetry returns a Model that calls m again when a call fails in a way
// that may pass on its own: the API answered 408, 429 (unless a daily
// quota is used up), 500, 502, 503 or 504, before or inside the stream, or
// the connection failed (reset, refused, closed, timed out, cut short). It
// never retries other API errors or a cancelled ctx.
//
// It also calls m again, up to EmptyAttempts in all, when an answer ends
// normally with nothing in it: no text but thoughts, no function call, no
// finish reason other than STOP, no blocked prompt (Gemini CLI retries such
// "invalid streams" too). When the attempts run out, the empty answer is
// the call's answer.
//
// A call that has already yielded chunks is tried again only when req has
// Events: the layer first reports an [EventRetry] with Discard set, which
// tells the consumer that what it has of the call is void (the harness
// drops it; nothing of it was acted on, since tools run after the answer).
// Without Events no one can be told, and the error is yielded instead.
//
// The wait before attempt n+1 is InitialDelay·2^(n-1), capped at MaxDelay,
// plus jitter. When the error carries a google.rpc.RetryInfo detail (the
// API sends one with most 429s), or its message says "Please retry in
// 27s", that delay is used instead, capped at 5 minutes; a per-minute
// quota error without one waits a minute. The details, read from
// genai.APIError.Details, are the only server-given delay there is: genai
// does not expose the headers of a failed response, so a Retry-After
// header is never seen.
//
// Before each wait it reports an [EventRetry] through req.Events, when set.
// When the attempts run out it yields the last error, saying how many
// attempts were made.
//
// To rate-limit attempts rather than calls, wrap the rate limiter:
// WithRetry(WithRateLimit(m, n), opts).
func WithRetry(m Model, opts RetryOptions) Model {
	if opts.Attempts <= 0 {
		opts.Attempts = defaultAttempts
	}
	if opts.InitialDelay <= 0 {
		opts.InitialDelay = defaultInitialDelay
	}
	if opts.MaxDelay <= 0 {
		opts.MaxDelay = defaultMaxDelay
	}
	switch {
	case opts.Jitter == 0:
		opts.Jitter = defaultJitter
	case opts.Jitter < 0:
		opts.Jitter = 0
	}
	if opts.EmptyAttempts <= 0 {
		opts.EmptyAttempts = defaultEmptyAttempts
	}
	if opts.Rand == nil {
		opts.Rand = rand.Float64
	}
	if opts.Sleep == nil {
		opts.Sleep = sleep
	}
	return &retryModel{next: m, opts: opts}
}

type retryModel struct {
	next Model
	opts RetryOptions // defaults filled in
}

// Generate implements Model.
func (m *retryModel) Generate(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		failures, empties := 0, 0
		for call := 1; ; call++ {
			var (
				sent    bool // a chunk of this attempt reached the consumer
				failure error
				look    answerLook
			)
			for resp, err := range m.next.Generate(ctx, req) {
				if err != nil {
					failure = err
					break
				}
				look.add(resp)
				sent = true
				if !yield(resp, nil) {
					return
				}
			}
			canTell := !sent || (req != nil && req.Events != nil)
			var info RetryInfo
			if failure == nil {
				empties++
				if !look.empty() || empties >= m.opts.EmptyAttempts || !canTell || ctx.Err() != nil {
					return
				}
				info = RetryInfo{Attempt: call, Delay: emptyDelay * time.Duration(empties), Reason: "empty answer",
					Error: "the model's answer was empty", Discard: sent}
			} else {
				failures++
				switch {
				case ctx.Err() != nil || !retryable(failure) || !canTell:
					yield(nil, failure)
					return
				case failures >= m.opts.Attempts:
					yield(nil, fmt.Errorf("%w (gave up after %d attempts)", failure, failures))
					return
				}
				info = RetryInfo{Attempt: call, Delay: m.delay(failures, failure), Reason: retryReason(failure, sent),
					Error: failure.Error(), Discard: sent}
			}
			if req != nil && req.Events != nil {
				req.Events(Event{Type: EventRetry, Retry: &info})
			}
			if err := m.opts.Sleep(ctx, info.Delay); err != nil {
				yield(nil, fmt.Errorf("waiting to retry the model call: %w", err))
				return
			}
		}
	}
}

// answerLook watches a streamed answer for anything in it.
type answerLook struct {
	data    bool // a part with data: text (not thought), a call, inline data…
	finish  genai.FinishReason
	blocked bool
}

func (a *answerLook) add(resp *genai.GenerateContentResponse) {
	if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
		a.blocked = true
	}
	if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
		return
	}
	c := resp.Candidates[0]
	if c.FinishReason != "" {
		a.finish = c.FinishReason
	}
	if c.Content != nil {
		for _, p := range c.Content.Parts {
			a.data = a.data || hasData(p)
		}
	}
}

// empty tells an answer that ended normally with nothing in it.
func (a *answerLook) empty() bool {
	normal := a.finish == "" || a.finish == genai.FinishReasonStop || a.finish == genai.FinishReasonUnspecified
	return !a.data && !a.blocked && normal
}

// hasData reports whether a part carries something other than thoughts
// and signatures. A part without data must never go back to the API.
func hasData(p *genai.Part) bool {
	if p == nil {
		return false
	}
	return (p.Text != "" && !p.Thought) || p.FunctionCall != nil || p.FunctionResponse != nil ||
		p.InlineData != nil || p.FileData != nil || p.ExecutableCode != nil || p.CodeExecutionResult != nil
}

// retryReason names a retried failure in a few words, for progress.
func retryReason(err error, midStream bool) string {
	if apiErr, ok := asAPIError(err); ok {
		switch code := apiErr.Code; {
		case code == 503:
			return "model overloaded"
		case code == 429:
			return "rate limit reached"
		case code == 408 || code == 504:
			return "model call timed out"
		case code >= 500:
			return "server error"
		}
	}
	if midStream {
		return "answer cut off"
	}
	return "connection failed"
}

// delay is the wait after the given failed attempt (from 1).
func (m *retryModel) delay(attempt int, err error) time.Duration {
	if d, ok := serverDelay(err); ok {
		return min(d, maxServerDelay)
	}
	if apiErr, ok := asAPIError(err); ok && apiErr.Code == 429 && quotaOf(apiErr).perMinute {
		return perMinuteDelay
	}
	d := m.opts.InitialDelay
	for i := 1; i < attempt && d < m.opts.MaxDelay; i++ {
		d *= 2
	}
	d = min(d, m.opts.MaxDelay)
	return d + time.Duration(float64(d)*m.opts.Jitter*m.opts.Rand())
}

// serverDelay returns the retryDelay of a google.rpc.RetryInfo detail of
// err's genai.APIError, such as "7s" or "1.500s" (a protobuf Duration in
// JSON), else the delay its message asks for ("Please retry in 27.6s.").
func serverDelay(err error) (time.Duration, bool) {
	apiErr, ok := asAPIError(err)
	if !ok {
		return 0, false
	}
	for _, detail := range apiErr.Details {
		typ, _ := detail["@type"].(string)
		if !strings.HasSuffix(typ, "google.rpc.RetryInfo") {
			continue
		}
		s, _ := detail["retryDelay"].(string)
		if d, err := time.ParseDuration(s); err == nil && d > 0 {
			return d, true
		}
	}
	if m := retryIn.FindStringSubmatch(apiErr.Message); m != nil {
		if d, err := time.ParseDuration(m[1]); err == nil && d > 0 {
			return d, true
		}
	}
	return 0, false
}

// retryIn finds the delay the API's quota messages ask for.
var retryIn = regexp.MustCompile(`Please retry in ([0-9.]+(?:ms|s))`)

// asAPIError finds the genai.APIError in err's chain. genai returns it as a
// value; a pointer is accepted too.
func asAPIError(err error) (genai.APIError, bool) {
	var apiErr genai.APIError
	if errors.As(err, &apiErr) {
		return apiErr, true
	}
	var ptr *genai.APIError
	if errors.As(err, &ptr) && ptr != nil {
		return *ptr, true
	}
	return genai.APIError{}, false
}

// retryable reports whether a failed call may pass when tried again.
func retryable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	if apiErr, ok := asAPIError(err); ok {
		switch apiErr.Code {
		case 429:
			return !quotaOf(apiErr).perDay // a day's quota does not come back in minutes
		case 408, 500, 502, 503, 504:
			return true
		}
		return false
	}
	var (
		dnsErr *net.DNSError
		opErr  *net.OpError
		urlErr *url.Error
		netErr net.Error
	)
	switch {
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return false // a wrong host name stays wrong
	case errors.Is(err, io.ErrUnexpectedEOF), // the stream was cut
		errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED),
		errors.Is(err, syscall.EPIPE),
		errors.As(err, &opErr):
		return true
	case errors.As(err, &urlErr) && errors.Is(urlErr.Err, io.EOF):
		return true // the server closed the connection without an answer
	case errors.As(err, &netErr) && netErr.Timeout():
		// A per-attempt timeout (an HTTP client or request timeout); the
		// caller's own deadline was ruled out before.
		return true
	}
	return false
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
