package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agentls/agentls/lsp/lsptest"
	"github.com/agentls/agentls/workspace"
)

// What the scenario's editor is and does before the editor section plays:
// its capabilities, and how it starts the run.

func (r *scenarioRun) caps() *protocol.ClientCapabilities {
	var c *protocol.ClientCapabilities
	switch r.sc.flags.Client {
	case "", "full":
		c = lsptest.FullCapabilities()
	case "nvim07":
		c = lsptest.Neovim07Capabilities()
		r.ed.ClientInfo = lsptest.NeovimInfo("0.7.2")
	case "nvim012":
		c = lsptest.Neovim012Capabilities()
		r.ed.ClientInfo = lsptest.NeovimInfo("0.12.4")
	case "eglot":
		c = lsptest.EglotCapabilities()
	case "minimal":
		c = lsptest.MinimalCapabilities()
	default:
		r.t.Fatalf("flags: unknown client %q", r.sc.flags.Client)
	}
	if c.Workspace == nil {
		c.Workspace = &protocol.WorkspaceClientCapabilities{}
	}
	if c.Workspace.WorkspaceEdit == nil {
		c.Workspace.WorkspaceEdit = &protocol.WorkspaceEditClientCapabilities{}
	}
	if c.Window == nil {
		c.Window = &protocol.WindowClientCapabilities{}
	}
	if r.sc.flags.Plugin {
		c.Experimental = protocol.LSPAny(`{"agentls":{"hunkReview":true}}`)
		we := c.Workspace.WorkspaceEdit
		t := true
		we.DocumentChanges, we.ChangeAnnotationSupport = &t, &protocol.ChangeAnnotationsSupportOptions{}
	}
	we := c.Workspace.WorkspaceEdit
	for _, w := range r.sc.flags.Without {
		switch w {
		case "applyEdit":
			c.Workspace.ApplyEdit = nil
		case "documentChanges":
			we.DocumentChanges = nil
		case "changeAnnotations":
			we.ChangeAnnotationSupport = nil
		case "create":
			we.ResourceOperations = slices.DeleteFunc(we.ResourceOperations, func(k protocol.ResourceOperationKind) bool {
				return k == protocol.ResourceOperationKindCreate
			})
		case "delete":
			we.ResourceOperations = slices.DeleteFunc(we.ResourceOperations, func(k protocol.ResourceOperationKind) bool {
				return k == protocol.ResourceOperationKindDelete
			})
		case "workDoneProgress":
			c.Window.WorkDoneProgress = nil
		case "showDocument":
			c.Window.ShowDocument = nil
		case "configuration":
			c.Workspace.Configuration = nil
		default:
			r.t.Fatalf("flags: unknown capability %q", w)
		}
	}
	return c
}

func (r *scenarioRun) uri(name string) uri.URI {
	return workspace.URIFromPath(filepath.Join(r.dir, filepath.FromSlash(name)))
}

func (r *scenarioRun) startRun(ctx context.Context) {
	f := r.sc.flags.Run
	args := map[string]any{"prompt": f.Prompt}
	if f.File != "" {
		args["uri"] = r.uri(f.File)
	}
	if f.Range != "" {
		args["range"] = parseRange(r.t, f.Range)
	}
	b, _ := json.Marshal(args)
	params := &protocol.ExecuteCommandParams{Command: contract.CommandRun, Arguments: []protocol.LSPAny{b}}
	if f.Token != "" {
		params.WorkDoneToken = protocol.String(f.Token)
	}
	r.execute(ctx, params)
}

// execute runs an agentls.run command and keeps the run's id.
func (r *scenarioRun) execute(ctx context.Context, params *protocol.ExecuteCommandParams) {
	res, err := r.ed.Server.ExecuteCommand(ctx, params)
	if err != nil {
		r.t.Fatalf("%s: %v", params.Command, err)
	}
	var out contract.RunResult
	if err := json.Unmarshal(res, &out); err != nil {
		r.t.Fatalf("%s answered %s: %v", params.Command, res, err)
	}
	r.runID <- out.RunID
}

// codeAction asks for code actions, executes the chosen one as a client
// would (its command, with its arguments) and returns the offered titles
// for the transcript.
func (r *scenarioRun) codeAction(ctx context.Context) []string {
	f := r.sc.flags.Action
	params := &protocol.CodeActionParams{TextDocument: protocol.TextDocumentIdentifier{URI: r.uri(f.File)}}
	if f.Range != "" {
		params.Range = parseRange(r.t, f.Range)
	}
	for _, d := range f.Diagnostics {
		params.Context.Diagnostics = append(params.Context.Diagnostics, protocol.Diagnostic{
			Range: parseRange(r.t, d.Range), Message: protocol.String(d.Message),
			Source: protocol.NewOptional(d.Source), Severity: protocol.DiagnosticSeverity(d.Severity),
		})
	}
	for _, k := range f.Only {
		params.Context.Only = append(params.Context.Only, protocol.CodeActionKind(k))
	}
	actions, err := r.ed.Server.CodeAction(ctx, params)
	if err != nil {
		r.t.Fatalf("codeAction: %v", err)
	}
	var header []string
	var chosen *protocol.CodeAction
	for _, a := range actions {
		ca, ok := a.(*protocol.CodeAction)
		if !ok {
			r.t.Fatalf("code action %T, want *CodeAction", a)
		}
		if ca.Edit != nil {
			r.t.Errorf("code action %q carries an edit", ca.Title)
		}
		kind := ""
		if ca.Kind != nil {
			kind = string(*ca.Kind)
		}
		header = append(header, fmt.Sprintf("action %q %s", ca.Title, kind))
		if ca.Title == f.Choose {
			chosen = ca
		}
	}
	if chosen == nil {
		r.t.Fatalf("no code action %q; got:\n%s", f.Choose, strings.Join(header, "\n"))
	}
	args := chosen.Command.Arguments
	if f.Instruction != "" {
		var m map[string]any
		json.Unmarshal(args[0], &m)
		if m["ask"] != contract.AskInstruction {
			r.t.Errorf("action %q does not ask for an instruction", f.Choose)
		}
		m["instruction"] = f.Instruction
		b, _ := json.Marshal(m)
		args = []protocol.LSPAny{b}
	}
	header = append(header, fmt.Sprintf("chose %q", chosen.Title))
	r.execute(ctx, &protocol.ExecuteCommandParams{Command: chosen.Command.Command, Arguments: args})
	return header
}
