package lsp

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
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

// trustAdvice tells how to trust a workspace folder's policy file.
const trustAdvice = "To trust the folder's policy file, run the command " + contract.CommandApprovals + ` with {"action": "trust"}: it shows the file's allow rules and asks.`

// The answers of the trust question.
const (
	answerTrust      = "Trust"
	answerDoNotTrust = "Do not trust"
)

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
		if untrusted := (*policy.UntrustedError)(nil); errors.As(err, &untrusted) {
			s.showMessage(ctx, false, "agentls: "+err.Error()+". "+trustAdvice)
		} else if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errInvalidParams, contract.CommandApprovals, err)
		}
	case contract.ApprovalsTrust:
		if err := s.trustFolder(ctx, eng, args.Folder); err != nil {
			return nil, fmt.Errorf("%w: %s: %v", errInvalidParams, contract.CommandApprovals, err)
		}
	default:
		return nil, fmt.Errorf("%w: %s: action %q is not one of list, revoke, save, trust", errInvalidParams, contract.CommandApprovals, args.Action)
	}
	rules := eng.Rules()
	if rules == nil {
		rules = []policy.Rule{}
	}
	if len(params.Arguments) == 0 {
		// A client without a plugin shows nothing of the answer.
		s.showMessage(ctx, true, rulesMessage(rules))
	}
	return encodeResult(contract.ApprovalsResult{Rules: rules})
}

// trustFolder shows the allow rules of a workspace folder's policy file and
// trusts the file, as it is now, if the user says so.
func (s *Server) trustFolder(ctx context.Context, eng *policy.Engine, folder string) error {
	s.mu.Lock()
	ws := s.ws
	s.mu.Unlock()
	root := ws.Roots()[0]
	if folder != "" {
		p := filepath.Clean(folder)
		if strings.Contains(folder, "://") {
			p, _ = workspace.PathFromURI(uri.URI(folder))
		}
		if !slices.Contains(ws.Roots(), p) {
			return fmt.Errorf("%q is not a workspace folder", folder)
		}
		root = p
	}
	st, err := eng.TrustState(root)
	if err != nil {
		return err
	}
	if st.Hash == "" {
		return fmt.Errorf("%s has no configuration of its own to trust (%s, %s)", root, st.File, policy.WorkspaceSettingsFile(root))
	}
	if st.Trusted {
		s.showMessage(ctx, true, "agentls: the configuration of "+root+" is trusted as it is.")
		return nil
	}
	item, err := s.client.ShowMessageRequest(ctx, &protocol.ShowMessageRequestParams{
		Type: protocol.MessageTypeWarning, Message: trustQuestion(st),
		Actions: []protocol.MessageActionItem{{Title: answerTrust}, {Title: answerDoNotTrust}},
	})
	if err != nil || item == nil || item.Title != answerTrust {
		return nil // not trusted: nothing changes
	}
	return eng.Trust(root, st.Hash)
}

// trustQuestion asks to trust a folder's configuration, with what it would
// switch on.
func trustQuestion(st policy.TrustState) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trust the agentls configuration of %s as it is now? ", st.Folder)
	if lines := runner.TrustSummary(st); len(lines) == 0 {
		b.WriteString("It switches nothing on; its deny and ask rules apply anyway.")
	} else {
		b.WriteString("The repository's configuration would then:")
		for _, l := range lines {
			b.WriteString("\n- " + l)
		}
	}
	b.WriteString("\nA change to .agentls/policy.toml or .agentls/settings.json needs trust again.")
	shown, _ := edits.Visible(b.String())
	return shown
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
