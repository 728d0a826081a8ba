package tools_test

import (
	"context"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/agent/web"
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

// TestKinds: every built-in tool declares its kind where it is defined, and
// the tools offered only to runs that can propose are the ones that change
// files or run programs.
func TestKinds(t *testing.T) {
	t.Parallel()
	env := tools.Env{Proposer: noProposer{}, Mode: policy.ModeDefault, Web: web.New(web.Config{}), Search: true,
		Skills: []skill.Skill{{Name: "s", Description: "d"}}}
	got := map[string]agent.Kind{}
	for _, tl := range tools.Builtin(env) {
		got[tl.Declaration().Name] = agent.KindOf(tl)
	}
	want := map[string]agent.Kind{
		"read_file": agent.KindRead, "list_directory": agent.KindRead, "glob": agent.KindRead, "grep_search": agent.KindRead,
		"write_todos": agent.KindRead, "activate_skill": agent.KindRead, "google_web_search": agent.KindRead,
		"web_fetch": agent.KindFetch,
		"replace":   agent.KindEdit, "write_file": agent.KindEdit, "save_memory": agent.KindEdit,
		"run_shell_command": agent.KindExecute,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("kinds (-want +got):\n%s", diff)
	}
	for name, k := range got {
		if got, want := tools.NeedsProposer(name), k == agent.KindEdit || k == agent.KindExecute; got != want {
			t.Errorf("NeedsProposer(%q) = %v for a tool of kind %q", name, got, k)
		}
	}
}
