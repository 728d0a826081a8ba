package lsp

import (
	"fmt"
	"strings"

	"go.lsp.dev/protocol"
)

// The prompts of the built-in actions. They are text the model reads: keep
// them short and exact. ${…} is expanded when the run starts (see expand).
const (
	promptExplain  = "Explain what the selected code does and why, for a reader who knows the language. Answer in Markdown. Do not change any file."
	promptRefactor = "Refactor the selected code: ${instruction}. Keep its behaviour unchanged."
	promptDocument = "Add documentation comments to the selected code, in the style of its language and of this project. Change nothing else."
	promptTests    = "Write tests for the selected code. Follow the project's existing test files and conventions."
	promptFix      = "Fix this problem: ${diagnostics}"
	promptFixAll   = "Fix all of these problems in ${file}:\n${diagnostics}"

	// defaultInstruction stands in for ${instruction} when nobody gave one
	// (a client without a plugin cannot ask).
	defaultInstruction = "make it simpler and clearer"
)

// Kinds of the code actions, as clients filter them (context.only).
const (
	kindExplain  protocol.CodeActionKind = "agentls.explain"
	kindRefactor protocol.CodeActionKind = "refactor.rewrite.agentls"
	kindDocument protocol.CodeActionKind = "refactor.rewrite.agentls.document"
	kindTests    protocol.CodeActionKind = "agentls.tests"
	kindCustom   protocol.CodeActionKind = "agentls.custom"
)

func codeActionKinds() []protocol.CodeActionKind {
	return []protocol.CodeActionKind{protocol.CodeActionKindQuickFix, kindExplain, kindRefactor, kindDocument, kindTests, kindCustom}
}

// templateVars are the values ${…} expands to in a prompt.
type templateVars struct {
	selection, file, diagnostics, instruction string
}

// expand fills a prompt template. Unknown ${…} stay as they are.
func expand(prompt string, v templateVars) string {
	if !strings.Contains(prompt, "${") {
		return prompt
	}
	instruction := strings.TrimSpace(v.instruction)
	if instruction == "" {
		instruction = defaultInstruction
	}
	return strings.NewReplacer(
		"${selection}", v.selection,
		"${file}", v.file,
		"${diagnostics}", v.diagnostics,
		"${instruction}", instruction,
	).Replace(prompt)
}

// diagnosticsText lists diagnostics for a prompt: the message alone for one,
// one "- line N: message (source)" line each for several.
func diagnosticsText(ds []protocol.Diagnostic) string {
	if len(ds) == 1 {
		return diagnosticLine(ds[0])
	}
	var b strings.Builder
	for i, d := range ds {
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "- line %d: %s", d.Range.Start.Line+1, diagnosticLine(d))
	}
	return b.String()
}

func diagnosticLine(d protocol.Diagnostic) string {
	msg := strings.TrimSpace(diagnosticMessage(d))
	if src := optional(d.Source); src != "" {
		msg += " (" + src + ")"
	}
	return msg
}

// fixTitle is the title of the quick fix for d.
func fixTitle(d protocol.Diagnostic) string {
	return "Agent: Fix '" + shorten(diagnosticMessage(d), 60) + "'"
}
