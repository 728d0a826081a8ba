package tools_test

import (
	"context"
	"slices"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/tools"
)

type noProposer struct{}

func (noProposer) Propose(context.Context, agent.Change) (agent.Decision, error) {
	return agent.Decision{}, nil
}

// TestNeedsProposer checks NeedsProposer against what Builtin offers with
// and without a Proposer, so the two cannot drift apart.
func TestNeedsProposer(t *testing.T) {
	t.Parallel()
	names := func(env tools.Env) []string {
		var out []string
		for _, tl := range tools.Builtin(env) {
			out = append(out, tl.Declaration().Name)
		}
		return out
	}
	readOnly := names(tools.Env{})
	all := names(tools.Env{Proposer: noProposer{}, Mode: policy.ModeDefault})
	if plan := names(tools.Env{Proposer: noProposer{}, Mode: policy.ModePlan}); !slices.Equal(plan, readOnly) {
		t.Errorf("plan mode offers %v, want the read-only tools %v", plan, readOnly)
	}
	for _, n := range all {
		if got, want := tools.NeedsProposer(n), !slices.Contains(readOnly, n); got != want {
			t.Errorf("NeedsProposer(%q) = %v, want %v", n, got, want)
		}
	}
	if len(all) == len(readOnly) {
		t.Fatal("a Proposer adds no tool")
	}
}
