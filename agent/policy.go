package agent

import (
	"context"
	"encoding/json"
	"fmt"
)

// A Verdict is a policy's answer to a tool call.
type Verdict string

// Verdicts.
const (
	VerdictAllow Verdict = "allow" // the call runs
	VerdictDeny  Verdict = "deny"  // the call is refused
	VerdictAsk   Verdict = "ask"   // the user decides, through the Approver
)

// A PolicyCall is a tool call as a [Policy] sees it.
type PolicyCall struct {
	Agent string // the agent that calls ("main", a subagent's name)
	Tool  string
	// Kind is the kind the tool declares (see [Kinded]); "" for none.
	Kind Kind
	Args json.RawMessage
	// Approval is what the user would be asked to allow, for tools that
	// implement [Approvable]; nil for other tools.
	Approval *Approval
	// Trusted reports that the user's own configuration trusts the tool
	// (see [Trusted]).
	Trusted bool
}

// Trusted is implemented by tools that the user's own configuration may
// trust (an MCP server with trust: true). A Policy may let calls of a
// trusted tool run without asking.
type Trusted interface {
	Trusted() bool
}

// A PolicyDecision is a [Policy]'s answer.
type PolicyDecision struct {
	Verdict Verdict
	// Rule names the rule that decided ("" when a default did), so that a
	// denial can say which rule to change.
	Rule string
	// Message says why, for a denial.
	Message string
}

// Policy decides, before a tool call runs, whether it runs, is refused, or
// needs the user's approval. Check must not block: it is asked on the call's
// goroutine before every call but complete_task.
type Policy interface {
	Check(c PolicyCall) PolicyDecision
}

// Approvable is implemented by tools whose calls are risky (shell commands):
// the user, or a rule, must allow each call. Approval describes the action a
// call would take; the approval is bound to it (the exact command and
// folder). An error refuses the call before anyone is asked, and goes back
// to the model as the call's error result.
type Approvable interface {
	Approval(args json.RawMessage) (Approval, error)
}

// permission is a run's Policy and Approver.
type permission struct {
	policy   Policy
	approver Approver
}

// permit asks the run's policy, and the user when the policy says so,
// whether a call may run. When it may not, res is the result the model gets,
// or err stops the run (the user was being asked when the run ended).
//
// Without a Policy every call runs, except calls of Approvable tools, which
// are asked for.
func (r *run) permit(ctx context.Context, call *Call, tool Tool) (res Result, ok bool, err error) {
	if tool == Tool(r.complete) {
		return Result{}, true, nil
	}
	var ap *Approval
	if a, is := tool.(Approvable); is {
		x, err := a.Approval(call.Args)
		if err != nil {
			return Errorf("%v", err), false, nil
		}
		if x.Tool == "" {
			x.Tool = call.Name
		}
		ap = &x
	}
	trusted := false
	if t, is := tool.(Trusted); is {
		trusted = t.Trusted()
	}
	d := PolicyDecision{Verdict: VerdictAllow}
	switch {
	case r.perm.policy != nil:
		d = r.perm.policy.Check(PolicyCall{Agent: r.def.Name, Tool: call.Name, Kind: KindOf(tool), Args: call.Args, Approval: ap, Trusted: trusted})
	case ap != nil:
		d.Verdict = VerdictAsk
	}
	what := action(call.Name, ap)
	switch d.Verdict {
	case VerdictAllow:
		return Result{}, true, nil
	case VerdictAsk:
	default: // deny, and anything a Policy should not say
		msg := "denied by policy"
		if d.Rule != "" {
			msg += " rule " + d.Rule
		}
		msg += ": " + what + " is not allowed"
		if d.Message != "" {
			msg += " (" + d.Message + ")"
		}
		msg += ". Do not retry it; find another way or tell the user."
		return Result{Output: msg, IsError: true, Display: "Denied by policy"}, false, nil
	}
	if ap == nil {
		ap = &Approval{Tool: call.Name}
		if d, ok := tool.(Describer); ok {
			ap.Description = d.Describe(call.Args) // "Writing gen/x.go"
		}
	}
	if r.perm.approver == nil {
		return Errorf("%s needs the user's approval, and this run cannot ask for it. Do not retry it; tell the user what you wanted to do.", what), false, nil
	}
	allowed, err := call.Approve(ctx, r.perm.approver, *ap)
	if err != nil {
		return Result{}, false, err
	}
	if !allowed {
		return Result{Output: "the user denied running " + what + ". Do not run it again; find another way or ask the user.",
			IsError: true, Display: "Denied by the user"}, false, nil
	}
	return Result{}, true, nil
}

// action names what a call would do, for the model: "`go test ./...` in
// /ws", or the tool's name.
func action(tool string, ap *Approval) string {
	if ap == nil || ap.Command == "" {
		return tool
	}
	if ap.Dir == "" {
		return fmt.Sprintf("`%s`", ap.Command)
	}
	return fmt.Sprintf("`%s` in %s", ap.Command, ap.Dir)
}
