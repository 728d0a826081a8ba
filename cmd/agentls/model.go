package main

import (
	"context"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
)

// newModel returns the model a run talks to, configured from the
// environment, with retries on rate limits and transient failures.
func newModel(ctx context.Context, name string, getenv func(string) string) (agent.Model, error) {
	if name == agent.ModelAuto {
		name = "" // the harness routes; the adapter's default serves unrouted calls
	}
	m, err := gemini.New(ctx, gemini.Config{Model: name, Getenv: getenv})
	if err != nil {
		return nil, err
	}
	return agent.WithRetry(m, agent.RetryOptions{}), nil
}
