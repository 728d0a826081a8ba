package lsp

import (
	"github.com/agentls/agentls/contract"

	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// CodeAction offers agent actions for a selection and for the diagnostics in
// the request's context. It is cheap: it reads neither the document nor the
// model; each action carries an agentls.run command, never an edit (VS Code
// ignores needsConfirmation on code action edits, so changes always come as
// workspace/applyEdit proposals from the run).
func (s *Server) CodeAction(ctx context.Context, params *protocol.CodeActionParams) ([]protocol.CommandOrCodeAction, error) {
	if _, err := s.docPath(params.TextDocument.URI); err != nil {
		return nil, nil // untitled: and other schemes: runs need a file
	}
	s.mu.Lock()
	custom := s.settings.CustomActions
	s.mu.Unlock()
	req := actionRequest{
		uri:         params.TextDocument.URI,
		rng:         params.Range,
		selection:   params.Range.Start != params.Range.End,
		diagnostics: params.Context.Diagnostics,
		only:        params.Context.Only,
	}
	return req.actions(custom), nil
}

// An actionRequest is what the code actions depend on.
type actionRequest struct {
	uri         uri.URI
	rng         protocol.Range
	selection   bool
	diagnostics []protocol.Diagnostic
	only        []protocol.CodeActionKind
}

func (r actionRequest) actions(custom []contract.CustomAction) []protocol.CommandOrCodeAction {
	var out []protocol.CommandOrCodeAction
	add := func(title string, kind protocol.CodeActionKind, args contract.RunArgs, ds []protocol.Diagnostic) {
		if !r.wants(kind) {
			return
		}
		args.URI = r.uri
		args.Title = strings.TrimSuffix(strings.TrimPrefix(title, "Agent: "), "…")
		b, err := protocol.Marshal(args)
		if err != nil {
			return // Inv: contract.RunArgs always encodes
		}
		k := kind
		out = append(out, &protocol.CodeAction{
			Title:       title,
			Kind:        &k,
			Diagnostics: ds,
			Command:     protocol.Command{Title: title, Command: contract.CommandRun, Arguments: []protocol.LSPAny{b}},
		})
	}
	for _, d := range r.diagnostics {
		rng := d.Range
		add(fixTitle(d), protocol.CodeActionKindQuickFix,
			contract.RunArgs{Prompt: promptFix, Range: &rng, Diagnostics: []protocol.Diagnostic{d}, Action: contract.ActionFix},
			[]protocol.Diagnostic{d})
	}
	if n := len(r.diagnostics); n > 1 {
		add(fmt.Sprintf("Agent: Fix all %d problems in this file", n), protocol.CodeActionKindQuickFix,
			contract.RunArgs{Prompt: promptFixAll, Diagnostics: r.diagnostics, Action: contract.ActionFixAll}, r.diagnostics)
	}
	if r.selection {
		rng := r.rng
		add("Agent: Explain selection", kindExplain, contract.RunArgs{Prompt: promptExplain, Range: &rng, Action: contract.ActionExplain}, nil)
		add("Agent: Refactor selection…", kindRefactor, contract.RunArgs{Prompt: promptRefactor, Range: &rng, Action: contract.ActionRefactor, Ask: contract.AskInstruction}, nil)
		add("Agent: Add documentation", kindDocument, contract.RunArgs{Prompt: promptDocument, Range: &rng, Action: contract.ActionDocument}, nil)
		add("Agent: Write tests", kindTests, contract.RunArgs{Prompt: promptTests, Range: &rng, Action: contract.ActionTests}, nil)
	}
	for _, a := range custom {
		if strings.Contains(a.Prompt, "${selection}") && !r.selection ||
			strings.Contains(a.Prompt, "${diagnostics}") && len(r.diagnostics) == 0 {
			continue
		}
		args := contract.RunArgs{Prompt: a.Prompt, Action: contract.ActionCustom}
		if r.selection {
			rng := r.rng
			args.Range = &rng
		}
		if len(r.diagnostics) > 0 {
			args.Diagnostics = r.diagnostics
		}
		add("Agent: "+a.Title, kindCustom, args, nil)
	}
	return out
}

// wants reports whether the client asked for actions of kind (context.only
// holds kinds or their parents).
func (r actionRequest) wants(kind protocol.CodeActionKind) bool {
	if len(r.only) == 0 {
		return true
	}
	for _, o := range r.only {
		if kind == o || strings.HasPrefix(string(kind), string(o)+".") {
			return true
		}
	}
	return false
}
