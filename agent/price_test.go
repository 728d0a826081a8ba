package agent_test

import (
	"math"
	"testing"

	"github.com/agentls/agentls/agent"
)

func TestPriceLookup(t *testing.T) {
	t.Parallel()
	prices := agent.Prices.With(map[string]agent.Price{"my-model": {Input: 1, Output: 2}})
	tests := []struct {
		model string
		want  string // the table entry it is priced as, "" none
	}{
		{"gemini-3.5-flash", "gemini-3.5-flash"},
		{"models/gemini-3.5-flash", "gemini-3.5-flash"},
		{"gemini-flash-latest", "gemini-3.5-flash"},
		{"gemini-pro-latest", "gemini-3.1-pro-preview"},
		{"gemini-flash-lite-latest", "gemini-3.1-flash-lite"},
		{"gemini-2.5-flash-001", "gemini-2.5-flash"},
		{"gemini-3.1-pro-preview-06-05", "gemini-3.1-pro-preview"},
		{"my-model", "my-model"},
		// A family the table lacks is not priced as a cousin.
		{"gemini-3.5-flash-lite", ""},
		{"gemini-3.5-flash-exp", ""},
		{"", ""},
		{"auto", ""},
	}
	for _, tt := range tests {
		got, ok := prices.Lookup(tt.model)
		want, wantOK := prices[tt.want]
		if ok != wantOK || got != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %q's price", tt.model, got, ok, tt.want)
		}
	}
}

// TestCost: cost figures from known usage, tiers included.
func TestCost(t *testing.T) {
	t.Parallel()
	pro := agent.Prices["gemini-3.1-pro-preview"]
	tests := []struct {
		name  string
		price agent.Price
		u     agent.Usage
		want  float64
	}{
		{"flash, cached and thoughts", agent.Prices["gemini-3.5-flash"],
			agent.Usage{Prompt: 10_000, Cached: 8_000, Output: 500, Thoughts: 1_500},
			(2_000*1.50 + 8_000*0.15 + 2_000*9.00) / 1e6},
		{"pro under the long tier", pro, agent.Usage{Prompt: 200_000, Output: 1_000}, (200_000*2.00 + 1_000*12.00) / 1e6},
		{"pro over the long tier", pro, agent.Usage{Prompt: 200_001, Output: 1_000}, (200_001*4.00 + 1_000*18.00) / 1e6},
		{"tool use is prompt", agent.Prices["gemini-2.5-flash"], agent.Usage{Prompt: 100, ToolUse: 50}, 150 * 0.30 / 1e6},
		{"no cached price: cached at the input price", agent.Price{Input: 1, Output: 2}, agent.Usage{Prompt: 10, Cached: 4}, 10 * 1.0 / 1e6},
	}
	for _, tt := range tests {
		if got := tt.price.Cost(tt.u); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("%s: cost %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestDollars(t *testing.T) {
	t.Parallel()
	for v, want := range map[float64]string{0: "$0", 1.234: "$1.23", 0.1: "$0.10", 0.0024: "$0.0024", 0.002: "$0.002", 0.0000123: "$0.000012", 12: "$12.00"} {
		if got := agent.Dollars(v); got != want {
			t.Errorf("Dollars(%v) = %q, want %q", v, got, want)
		}
	}
}
