package main

import (
	"context"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini"
)

// newModel returns the model a run talks to, configured from the environment.
func newModel(ctx context.Context, name string, getenv func(string) string) (agent.Model, error) {
	return gemini.New(ctx, gemini.Config{Model: name, Getenv: getenv})
}
