package agent

import (
	"context"
	"fmt"
	"iter"

	"golang.org/x/time/rate"
	"google.golang.org/genai"
)

// WithRateLimit returns a Model that starts at most perMinute calls of m a
// minute, shared by every call through it (so share one wrapper between
// the runs that share a quota). Calls may come in bursts of a tenth of
// perMinute (at least 1). A call waits its turn before it reaches m; if ctx
// ends first, or its deadline would pass before the turn comes, the call
// yields a context error (errors.Is context.Canceled or
// context.DeadlineExceeded) and m is not called. perMinute <= 0 returns m
// unchanged.
//
// Wrapped by [WithRetry], each attempt waits its turn.
func WithRateLimit(m Model, perMinute int) Model {
	if perMinute <= 0 {
		return m
	}
	burst := max(1, perMinute/10)
	return &rateLimited{next: m, limiter: rate.NewLimiter(rate.Limit(float64(perMinute)/60), burst)}
}

type rateLimited struct {
	next    Model
	limiter *rate.Limiter // safe for concurrent use
}

// Generate implements Model.
func (m *rateLimited) Generate(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if err := m.limiter.Wait(ctx); err != nil {
			if ctx.Err() == nil {
				// rate refuses at once a wait that would outlast ctx's
				// deadline, with an error that wraps nothing.
				err = fmt.Errorf("%w: %w", context.DeadlineExceeded, err)
			}
			yield(nil, fmt.Errorf("model call: waiting for the rate limit: %w", err))
			return
		}
		for resp, err := range m.next.Generate(ctx, req) {
			if !yield(resp, err) {
				return
			}
		}
	}
}
