package trace

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// SideEffecting names the tools a replay never runs again: their recorded
// results stand in. They reach past the workspace: shell commands act on
// the machine, web_fetch and google_web_search reach the network (a replay
// is offline, and the web changes). Edit tools need no stand-in: their
// changes go through the Proposer. The tools of MCP servers (named mcp_…)
// never run either.
var SideEffecting = []string{"run_shell_command", "web_fetch", "google_web_search"}

// sideEffectingPrefix starts the names of the tools of MCP servers.
const sideEffectingPrefix = "mcp_"

// IsSideEffecting reports whether a replay gives the tool name its
// recorded results instead of running it.
func IsSideEffecting(name string) bool {
	return slices.Contains(SideEffecting, name) || strings.HasPrefix(name, sideEffectingPrefix)
}

// Tools returns ts with the tools named in names (none given: the
// side-effecting ones, see [IsSideEffecting]) replaced by stand-ins that
// return the recorded results.
func (rp *Replay) Tools(ts []agent.Tool, names ...string) []agent.Tool {
	replace := IsSideEffecting
	if len(names) > 0 {
		replace = func(name string) bool { return slices.Contains(names, name) }
	}
	out := make([]agent.Tool, len(ts))
	for i, t := range ts {
		out[i] = t
		if replace(t.Declaration().Name) {
			out[i] = rp.Tool(t)
		}
	}
	return out
}

// Tool returns a stand-in for t: it declares, describes, locks and asks
// for approval as t does, but its Run returns the result recorded for the
// same call (same run, same call id), and reports a divergence when the
// call's arguments differ or none was recorded.
func (rp *Replay) Tool(t agent.Tool) agent.Tool {
	r := &replayTool{rp: rp, inner: t}
	if a, ok := t.(agent.Approvable); ok {
		return &approvableTool{replayTool: r, ap: a}
	}
	return r
}

type replayTool struct {
	rp    *Replay
	inner agent.Tool
}

type approvableTool struct {
	*replayTool
	ap agent.Approvable
}

func (t *approvableTool) Approval(args json.RawMessage) (agent.Approval, error) {
	return t.ap.Approval(args)
}

func (t *replayTool) Declaration() *genai.FunctionDeclaration { return t.inner.Declaration() }

func (t *replayTool) Locks(args json.RawMessage) []string {
	if l, ok := t.inner.(agent.Locker); ok {
		return l.Locks(args)
	}
	return nil
}

func (t *replayTool) Describe(args json.RawMessage) string {
	if d, ok := t.inner.(agent.Describer); ok {
		return d.Describe(args)
	}
	return ""
}

// Run implements agent.Tool with the recorded result.
func (t *replayTool) Run(ctx context.Context, call *agent.Call) (agent.Result, error) {
	where := fmt.Sprintf("%s call %s", call.Name, call.ID)
	now := fmt.Sprintf("%s %s", call.Name, call.Args)
	t.rp.mu.Lock()
	rec := t.rp.tools[callID{call.RunID, call.ID}]
	t.rp.mu.Unlock()
	switch {
	case rec == nil:
		return agent.Result{}, t.rp.diverge(&Divergence{Where: where, Recorded: "no such call", Now: now})
	case rec.call.Name != call.Name || !sameJSON(rec.call.Args, call.Args):
		return agent.Result{}, t.rp.diverge(&Divergence{Where: where, Recorded: fmt.Sprintf("%s %s", rec.call.Name, rec.call.Args), Now: now})
	case rec.result == nil:
		return agent.Result{}, t.rp.diverge(&Divergence{Where: where, Recorded: "no result: the recording ends while the call ran", Now: now})
	}
	return agent.Result{Output: rec.result.Output, IsError: rec.result.IsError, Display: rec.result.Display}, nil
}

func sameJSON(a, b json.RawMessage) bool {
	if bytes.Equal(a, b) {
		return true
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// Proposer returns a Proposer that answers each change as the recording
// answered the same file's change, after checking the change is the
// recorded one. Changes the user applied go on to apply (to a scratch copy
// or an in-memory overlay, never the recorded workspace), whose answer is
// returned.
func (rp *Replay) Proposer(apply agent.Proposer) agent.Proposer {
	return replayProposer{rp: rp, apply: apply}
}

type replayProposer struct {
	rp    *Replay
	apply agent.Proposer
}

func (p replayProposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	where := "proposal for " + ch.Name
	diff := edits.Unified(ch.Name, ch.Old, ch.New)
	rec := p.rp.take(p.rp.proposals, ch.Name)
	switch {
	case rec == nil:
		return agent.Decision{}, p.rp.diverge(&Divergence{Where: where, Recorded: "no such proposal", Now: "this change:\n" + diff})
	case rec.asked.Edit.Diff != diff:
		return agent.Decision{}, p.rp.diverge(&Divergence{Where: where, Recorded: "this change:\n" + rec.asked.Edit.Diff, Now: "this change:\n" + diff})
	case rec.answer == nil || rec.answer.Edit.Outcome == agent.OutcomeWithdrawn:
		return agent.Decision{}, p.rp.stopped(ctx, where)
	}
	e := rec.answer.Edit
	d := agent.Decision{Outcome: e.Outcome, Message: e.Message, RejectedHunks: e.Rejected}
	switch e.Outcome {
	case agent.OutcomeApplied, "staged": // lsp's confirm: run keeps changes for the end
		got, err := p.apply.Propose(ctx, ch)
		if err != nil || got.Outcome != agent.OutcomeApplied {
			return got, err
		}
		d.Outcome = agent.OutcomeApplied
	}
	return d, nil
}

// Approver returns an Approver that answers as the recording answered the
// same tool and command.
func (rp *Replay) Approver() agent.Approver { return replayApprover{rp} }

type replayApprover struct{ rp *Replay }

func (a replayApprover) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	where := "approval of " + action(ap)
	rec := a.rp.take(a.rp.approvals, approvalKey(ap))
	switch {
	case rec == nil:
		return false, a.rp.diverge(&Divergence{Where: where, Recorded: "no such approval", Now: "a question about " + action(ap)})
	case rec.answer == nil || rec.answer.Approval.Allowed == nil:
		return false, a.rp.stopped(ctx, where)
	}
	return *rec.answer.Approval.Allowed, nil
}

func approvalKey(ap agent.Approval) string { return ap.Tool + "\x00" + ap.Command }

func action(ap agent.Approval) string {
	if ap.Command != "" {
		return "`" + ap.Command + "`"
	}
	return ap.Tool
}

// take removes and returns the first recorded entry under key.
func (rp *Replay) take(m map[string][]*decided, key string) *decided {
	rp.mu.Lock()
	defer rp.mu.Unlock()
	q := m[key]
	if len(q) == 0 {
		return nil
	}
	m[key] = q[1:]
	return q[0]
}

// Policy returns a Policy that gives each call the recorded verdict of the
// same agent, tool and arguments. A call the recording has no verdict for
// is decided as the harness decides without a policy.
func (rp *Replay) Policy() agent.Policy { return replayPolicy{rp} }

type replayPolicy struct{ rp *Replay }

func (p replayPolicy) Check(c agent.PolicyCall) agent.PolicyDecision {
	key := checkKey(c.Agent, c.Tool, c.Args)
	p.rp.mu.Lock()
	q := p.rp.policy[key]
	if len(q) > 0 {
		p.rp.policy[key] = q[1:]
	}
	p.rp.mu.Unlock()
	if len(q) > 0 {
		return agent.PolicyDecision{Verdict: q[0].Verdict, Rule: q[0].Rule, Message: q[0].Message}
	}
	if c.Approval != nil {
		return agent.PolicyDecision{Verdict: agent.VerdictAsk}
	}
	return agent.PolicyDecision{Verdict: agent.VerdictAllow}
}
