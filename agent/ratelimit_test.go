package agent_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func TestRateLimitPassesCalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		perMinute int
	}{
		{"large limit", 60_000},
		{"no limit", 0},
		{"negative means no limit", -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			const calls = 5
			var turns []geminitest.Turn
			for range calls {
				turns = append(turns, geminitest.Reply(geminitest.Text("hello")))
			}
			srv, m := fakeModel(t, turns...)
			limited := agent.WithRateLimit(m, tt.perMinute)
			if tt.perMinute <= 0 && limited != m {
				t.Errorf("WithRateLimit(m, %d) wrapped m, want m itself", tt.perMinute)
			}
			for i := range calls {
				if text, _, err := generate(t.Context(), limited); err != nil || text != "hello" {
					t.Fatalf("call %d = %q, %v; want hello", i+1, text, err)
				}
			}
			if n := len(srv.Requests()); n != calls {
				t.Errorf("requests = %d, want %d", n, calls)
			}
		})
	}
}

func TestRateLimitWaitEndsWithContext(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		// ctx returns the context of the second call, which has to wait
		// a minute for its turn.
		ctx  func(t *testing.T) context.Context
		want error
	}{
		{
			name: "cancelled before",
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				return ctx
			},
			want: context.Canceled,
		},
		{
			name: "cancelled while waiting",
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithCancel(t.Context())
				done := make(chan struct{})
				go func() { // before or during the wait: either way it ends it
					defer close(done)
					cancel()
				}()
				t.Cleanup(func() { <-done })
				return ctx
			},
			want: context.Canceled,
		},
		{
			name: "deadline before the turn",
			ctx: func(t *testing.T) context.Context {
				ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
				t.Cleanup(cancel)
				return ctx
			},
			want: context.DeadlineExceeded,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fakeModel(t, geminitest.Reply(geminitest.Text("hello")), geminitest.Reply(geminitest.Text("too soon")))
			limited := agent.WithRateLimit(m, 1)
			if text, _, err := generate(t.Context(), limited); err != nil || text != "hello" {
				t.Fatalf("first call = %q, %v; want hello", text, err)
			}
			text, _, err := generate(tt.ctx(t), limited)
			if text != "" || !errors.Is(err, tt.want) {
				t.Errorf("second call = %q, %v; want no text and an error wrapping %v", text, err, tt.want)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Errorf("requests = %d, want 1 (the second call must not reach the model)", n)
			}
		})
	}
}

// TestRateLimitIsShared checks that calls through one wrapper share its
// budget: a second wrapper has a budget of its own.
func TestRateLimitIsShared(t *testing.T) {
	t.Parallel()
	srv, m := fakeModel(t, geminitest.Reply(geminitest.Text("one")), geminitest.Reply(geminitest.Text("two")))
	first, second := agent.WithRateLimit(m, 1), agent.WithRateLimit(m, 1)
	if _, _, err := generate(t.Context(), first); err != nil {
		t.Fatal(err)
	}
	// A wait of a minute would outlast the deadline, so a call that has to
	// wait fails at once.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, _, err := generate(ctx, first); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("second call through the same wrapper = %v, want it to wait (past its deadline)", err)
	}
	if text, _, err := generate(t.Context(), second); err != nil || text != "two" {
		t.Errorf("first call through another wrapper = %q, %v; want two", text, err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("requests = %d, want 2", n)
	}
}
