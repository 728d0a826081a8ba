package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent/policy"
)

// approvals is a server's policy engine: the rules of the user's policy file
// and of the workspace folders' files, and the "always allow" answers of
// this session, which last as long as the connection. The zero value is
// ready.
type approvals struct {
	mu  sync.Mutex
	eng *policy.Engine // made on first use
}

func (a *approvals) engine(userDir string) *policy.Engine {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.eng == nil {
		file := ""
		if userDir != "" {
			file = filepath.Join(userDir, "policy.toml")
		}
		a.eng = policy.New(file)
	}
	return a.eng
}

// runPolicy reads the policy files again where they changed and returns the
// policy of a run in its approval mode. Problems with the files are shown
// to the user; the rules that could be read apply.
func (s *Server) runPolicy(ctx context.Context, spec runSpec) policy.Policy {
	eng := s.approvals.engine(s.cfg.UserConfigDir)
	if err := eng.Load(spec.ws.Roots()); err != nil {
		msg := "agentls: policy rules ignored: " + strings.ReplaceAll(err.Error(), "\n", "; ")
		s.log.Warn(msg)
		s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
	}
	mode, err := policy.ParseMode(spec.settings.ApprovalMode)
	if err != nil {
		mode = policy.ModeDefault // settings already reported it
	}
	return eng.WithMode(mode)
}

func (s *Server) approvalsCommand(ctx context.Context, params *protocol.ExecuteCommandParams) (protocol.LSPAny, error) {
	var args contract.ApprovalsArgs
	if len(params.Arguments) > 0 {
		if err := commandArg(params, &args); err != nil {
			return nil, err
		}
	}
	eng := s.approvals.engine(s.cfg.UserConfigDir)
	switch args.Action {
	case "", contract.ApprovalsList:
	case contract.ApprovalsRevoke:
		if err := eng.Remove(args.ID); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errInvalidParams, contract.CommandApprovals, err)
		}
	case contract.ApprovalsSave:
		file, err := s.ruleFile(eng, args.ID)
		if err == nil {
			_, err = eng.Save(args.ID, file)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errInvalidParams, contract.CommandApprovals, err)
		}
	default:
		return nil, fmt.Errorf("%w: %s: action %q is not one of list, revoke, save", errInvalidParams, contract.CommandApprovals, args.Action)
	}
	rules := eng.Rules()
	if rules == nil {
		rules = []policy.Rule{}
	}
	if len(params.Arguments) == 0 {
		// A client without a plugin shows nothing of the answer.
		s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeInfo, Message: rulesMessage(rules)})
	}
	return encodeResult(contract.ApprovalsResult{Rules: rules})
}

// ruleFile is the policy file a session rule is saved to: that of the
// workspace folder it is bound to, else of the first folder.
func (s *Server) ruleFile(eng *policy.Engine, id string) (string, error) {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	for _, r := range eng.Rules() {
		switch {
		case r.ID != id:
		case r.Source != policy.SourceSession:
			return "", fmt.Errorf("rule %s is already in a policy file", id)
		case r.Dir != "":
			return policy.WorkspaceFile(r.Dir), nil
		default:
			return policy.WorkspaceFile(ws.Roots()[0]), nil
		}
	}
	return "", fmt.Errorf("no rule %q", id)
}

// rulesMessage lists rules for window/showMessage.
func rulesMessage(rules []policy.Rule) string {
	if len(rules) == 0 {
		return "agentls: no policy rules and no \"always allow\" answers in this session."
	}
	var b strings.Builder
	b.WriteString("agentls rules:")
	for _, r := range rules {
		fmt.Fprintf(&b, "\n- %s: %s", r.ID, r.Decision)
		if r.Name != "" {
			fmt.Fprintf(&b, " (%s)", r.Name)
		}
	}
	fmt.Fprintf(&b, "\nRevoke a session rule with %s {\"action\": \"revoke\", \"id\": …}; save it to the workspace with \"action\": \"save\".", contract.CommandApprovals)
	return b.String()
}
