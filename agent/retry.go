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
	"strings"
	"syscall"
	"time"

	"google.golang.org/genai"
)

// RetryOptions configures [WithRetry]. The zero value gives 5 attempts,
// delays of 1s, 2s, 4s, 8s (at most 60s) and 20% jitter.
type RetryOptions struct {
	// Attempts is the number of attempts in total, the first included;
	// 0 or less means 5.
	Attempts int
	// InitialDelay is the wait after the first failure; it doubles with
	// each further failure. 0 or less means 1s.
	InitialDelay time.Duration
	// MaxDelay caps the doubled delay (before jitter); 0 or less means 60s.
	MaxDelay time.Duration
	// Jitter is the fraction of the delay added at random, so that clients
	// that failed together do not retry together. 0 means 0.2; a negative
	// value means none.
	Jitter float64
	// Rand returns a number in [0, 1) for the jitter; nil means
	// math/rand/v2's Float64.
	Rand func() float64
	// Sleep waits d or until ctx ends, returning ctx's error in that case;
	// nil means a timer. Tests pass a recorder.
	Sleep func(ctx context.Context, d time.Duration) error
}

// Retry defaults, and the longest server-given delay honoured.
const (
	defaultAttempts     = 5
	defaultInitialDelay = time.Second
	defaultMaxDelay     = 60 * time.Second
	defaultJitter       = 0.2
	maxServerDelay      = 5 * time.Minute
)

// WithRetry returns a Model that calls m again when a call fails in a way
// that may pass on its own: the API answered 408, 429, 500, 502, 503 or 504,
// or the connection failed (reset, refused, closed, timed out, cut short).
// It never retries other API errors, a cancelled ctx, or a call that has
// already yielded a chunk: the consumer has seen that output, and a second
// answer would duplicate it.
//
// The wait before attempt n+1 is InitialDelay·2^(n-1), capped at MaxDelay,
// plus jitter; when the error carries a google.rpc.RetryInfo detail (the API
// sends one with most 429s) its retryDelay is used instead, capped at 5
// minutes. That detail, read from genai.APIError.Details, is the only
// server-given delay there is: genai does not expose the headers of a failed
// response, so a Retry-After header is never seen.
//
// Before each wait it reports an [EventRetry] through req.Events, when set.
// When the attempts run out it yields the last error, wrapped with their
// number.
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
		for attempt := 1; ; attempt++ {
			var (
				sent    bool // a chunk of this attempt reached the consumer
				failure error
			)
			for resp, err := range m.next.Generate(ctx, req) {
				if err != nil {
					failure = err
					break
				}
				sent = true
				if !yield(resp, nil) {
					return
				}
			}
			switch {
			case failure == nil:
				return
			case sent || ctx.Err() != nil || !retryable(failure):
				yield(nil, failure)
				return
			case attempt >= m.opts.Attempts:
				yield(nil, fmt.Errorf("model call failed after %d attempts: %w", attempt, failure))
				return
			}
			d := m.delay(attempt, failure)
			if req != nil && req.Events != nil {
				req.Events(Event{Type: EventRetry, Retry: &RetryInfo{Attempt: attempt, Delay: d, Error: failure.Error()}})
			}
			if err := m.opts.Sleep(ctx, d); err != nil {
				yield(nil, fmt.Errorf("waiting to retry the model call: %w", err))
				return
			}
		}
	}
}

// delay is the wait after the given failed attempt (from 1).
func (m *retryModel) delay(attempt int, err error) time.Duration {
	if d, ok := serverDelay(err); ok {
		return min(d, maxServerDelay)
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
// JSON).
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
	return 0, false
}

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
		case 408, 429, 500, 502, 503, 504:
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
