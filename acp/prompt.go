package acp

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"strings"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/runner"
)

// prompt runs one turn of a session (session/prompt): one harness run
// built by the run builder, its events streamed as session/update, and
// its end answered as a stop reason.
func (s *Server) prompt(ctx context.Context, p acpsdk.PromptRequest) (acpsdk.PromptResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	task, err := taskOf(ss, p.Prompt)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return acpsdk.PromptResponse{}, rpcError(codeInvalidRequest, "agentls is shutting down")
	}
	s.turns.Add(1)
	s.mu.Unlock()
	defer s.turns.Done()
	turnCtx, end, err := ss.begin(ctx)
	if err != nil {
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	defer end()
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed { // Serve stopped while the turn waited for the one before
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	return ss.run(turnCtx, task)
}

// taskOf is the harness's task of a prompt: its text, the files it embeds
// (an @-mention) and the links it names. Content the harness cannot take
// (images, audio, binary resources) is refused: nothing of the prompt is
// dropped without a word.
func taskOf(ss *session, blocks []acpsdk.ContentBlock) (agent.Task, error) {
	var text, files strings.Builder
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.ResourceLink != nil:
			fmt.Fprintf(&text, " @%s ", ss.linkName(b.ResourceLink.Uri))
		case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
			r := b.Resource.Resource.TextResourceContents
			name := ss.linkName(r.Uri)
			fmt.Fprintf(&files, "\nContent of @%s:\n%s\n", name, r.Text)
			if !strings.Contains(text.String(), "@"+name) {
				fmt.Fprintf(&text, " @%s ", name)
			}
		case b.Resource != nil:
			return agent.Task{}, rpcError(codeInvalidParams, "prompt block %d: agentls takes text resources only, not binary ones", i+1)
		case b.Image != nil:
			return agent.Task{}, rpcError(codeInvalidParams, "prompt block %d: agentls does not take images (promptCapabilities.image is false)", i+1)
		case b.Audio != nil:
			return agent.Task{}, rpcError(codeInvalidParams, "prompt block %d: agentls does not take audio (promptCapabilities.audio is false)", i+1)
		default:
			return agent.Task{}, rpcError(codeInvalidParams, "prompt block %d: unknown content type", i+1)
		}
	}
	prompt := strings.TrimSpace(text.String())
	if files.Len() > 0 {
		prompt += "\n\n--- Content from referenced files ---" + files.String() + "--- End of content ---"
	}
	if prompt == "" {
		return agent.Task{}, rpcError(codeInvalidParams, "the prompt is empty")
	}
	return agent.Task{Prompt: prompt}, nil
}

// linkName names a resource as the model should: a file of the session's
// folder by its relative path, anything else by its URI.
func (ss *session) linkName(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" || u.Path == "" {
		return uri
	}
	abs, err := ss.ws.Resolve(ss.root, u.Path)
	if err != nil {
		return u.Path // the model's reads of it are refused, and it is told why
	}
	return ss.ws.Folder(ss.root).Rel(abs)
}

// run builds the turn's run and drives it to its end.
func (ss *session) run(ctx context.Context, task agent.Task) (acpsdk.PromptResponse, error) {
	for _, n := range ss.takeNotices() {
		ss.update(ctx, acpsdk.UpdateAgentMessageText("agentls: "+n+"\n\n"))
	}
	if err := ss.engine.Load([]string{ss.root}); err != nil {
		// Told once, when the session opened; a file changed since is told
		// on the turn it changed for.
		if msg := "policy rules ignored: " + strings.ReplaceAll(err.Error(), "\n", "; "); ss.once(msg) {
			ss.update(ctx, acpsdk.UpdateAgentMessageText("agentls: "+msg+"\n\n"))
		}
	}
	t := newTurn(ctx, ss)
	settings := ss.settings
	settings.Model = ss.currentModel()
	mode := ss.currentMode()
	settings.ApprovalMode = string(mode)
	spec := runner.Spec{
		Workspace: ss.ws, Root: ss.root, Files: t.fs,
		Proposer: &proposer{t: t}, Approver: &approver{t: t},
		Policy: ss.engine.WithMode(mode), Settings: settings, Task: task, Unsaved: t.fs.unsaved,
		System: systemNote(mode),
	}
	spec.RunID = trace.NewRunID("main")
	kept, err := ss.hold(spec.RunID)
	if err != nil {
		return acpsdk.PromptResponse{}, err
	}
	spec.Session = kept.w
	run, err := ss.srv.cfg.Host.Build(ctx, spec)
	if err != nil {
		kept.close()
		return acpsdk.PromptResponse{}, rpcError(codeInternalError, "agentls: %v", err)
	}
	t.runID, t.size, t.spent = run.Config.RunID, cmp.Or(run.Config.ContextWindow, defaultWindow), kept.spent
	end := agent.RunEnd{Reason: agent.StopError, Error: "the run ended without a result"}
	for ev, err := range run.Events(ctx) {
		if err != nil {
			end = agent.RunEnd{Reason: agent.StopError, Error: err.Error()}
			break
		}
		if ev.Type == agent.EventRunEnd && ev.RunID == t.runID && ev.End != nil {
			end = *ev.End
			if end.Reason == agent.StopError && filtered(end.Error) {
				// Answered as a refusal, which tells the client the prompt
				// is not part of the conversation any more: so it is not.
				kept.forgetTurn()
			}
			continue
		}
		t.event(ev)
	}
	if run.TracePath != "" {
		ss.srv.log.Info("acp: turn traced", "session", ss.id, "run", t.runID, "trace", run.TracePath)
	}
	resp, err := t.finish(end)
	kept.told(ctx, ss, task.Prompt)
	return resp, err
}

// systemNote tells the model how its changes reach the user in a mode.
func systemNote(mode policy.Mode) string {
	switch mode {
	case policy.ModePlan:
		return "This session is in plan mode: you cannot change files or run commands. Read, think, and answer with what you found or what you would do."
	case policy.ModeAutoEdit:
		return "You work in the user's editor through the Agent Client Protocol: each change you make is written at once, and the user sees its diff."
	}
	return "You work in the user's editor through the Agent Client Protocol: each change you make is shown to the user as a diff and written only if they accept it."
}

// finish tells the user how the run ended and maps its stop reason:
//
//	goal, no_complete_task → end_turn (the answer is the message)
//	max_turns, timeout    → max_turn_requests (a limit of the turn)
//	budget                → max_tokens (the run spent what maxBudget allows)
//	loop                  → end_turn, saying the model kept repeating itself
//	aborted               → cancelled
//	error, by the model's filters → refusal
//	error, any other      → a JSON-RPC error with what went wrong
func (t *turn) finish(end agent.RunEnd) (acpsdk.PromptResponse, error) {
	say := func(msg string) { t.ss.update(t.ctx, acpsdk.UpdateAgentMessageText(msg)) }
	switch end.Reason {
	case agent.StopGoal:
		if r := strings.TrimSpace(end.Result); r != "" && r != strings.TrimSpace(t.lastText()) {
			say(t.separator() + end.Result)
		}
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
	case agent.StopNoCompleteTask:
		if t.lastText() == "" && end.Error != "" {
			say(t.separator() + "agentls: " + end.Error + ".")
		}
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
	case agent.StopMaxTurns:
		say(t.separator() + fmt.Sprintf("agentls: stopped after %d model turns, the turn limit (setting maxTurns).", end.Turns))
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTurnRequests}, nil
	case agent.StopTimeout:
		say(t.separator() + "agentls: stopped at the run's time limit (setting timeoutMinutes).")
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTurnRequests}, nil
	case agent.StopBudget:
		if r := strings.TrimSpace(end.Result); r != "" && r != strings.TrimSpace(t.lastText()) {
			say(t.separator() + end.Result)
		}
		say(t.separator() + "agentls: stopped: " + cmp.Or(end.Error, "the run spent its budget") + " (setting maxBudget).")
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonMaxTokens}, nil
	case agent.StopLoop:
		say(t.separator() + "agentls: stopped: the model kept repeating itself.")
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonEndTurn}, nil
	case agent.StopAborted:
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	if t.ctx.Err() != nil {
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonCancelled}, nil
	}
	if filtered(end.Error) {
		say(t.separator() + "agentls: " + end.Error + ".")
		return acpsdk.PromptResponse{StopReason: acpsdk.StopReasonRefusal}, nil
	}
	return acpsdk.PromptResponse{}, rpcError(codeInternalError, "agentls: %s", cmp.Or(end.Error, string(end.Reason)))
}

// filtered tells an error of the model's filters (a blocked prompt, an
// answer withheld twice) from other errors, by the harness's words
// (agent/finish.go); a test of this package pins them.
func filtered(msg string) bool {
	return strings.Contains(msg, "blocked by the model's filters") || strings.Contains(msg, "withheld by its filters")
}

// defaultWindow is the harness's context window when the run names none
// (agent.Config.ContextWindow).
const defaultWindow = 1 << 20
