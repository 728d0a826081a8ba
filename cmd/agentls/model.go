package main

import (
	"context"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
)

// newModel returns how runs get their model, configured from the
// environment e, with retries on rate limits and transient failures.
func newModel(e env) func(ctx context.Context, name string) (agent.Model, error) {
	return func(ctx context.Context, name string) (agent.Model, error) {
		if name == agent.ModelAuto {
			name = "" // the harness routes; the adapter's default serves unrouted calls
		}
		m, err := gemini.New(ctx, gemini.Config{Model: name, Getenv: e.get})
		if err != nil {
			return nil, err
		}
		return agent.WithRetry(m, agent.RetryOptions{}), nil
	}
}
