package agent

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed prompt.md
var corePrompt string

// systemPrompt is the fixed preamble sent with every model call.
func (r *run) systemPrompt() string {
	var b strings.Builder
	b.WriteString(corePrompt)
	if r.def.Instructions != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(r.def.Instructions))
		b.WriteString("\n")
	}
	if r.system != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(r.system))
		b.WriteString("\n")
	}
	return b.String()
}

// taskMessage is the user's first message: the task and its editor context.
func taskMessage(t Task) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(t.Prompt))
	b.WriteString("\n")
	if t.File != "" {
		fmt.Fprintf(&b, "\nActive file: %s\n", t.File)
	}
	if s := t.Selection; s != nil {
		fmt.Fprintf(&b, "\nSelected lines %d-%d of %s:\n```\n%s\n```\n", s.StartLine, s.EndLine, t.File, strings.TrimRight(s.Text, "\n"))
	}
	if len(t.Diagnostics) > 0 {
		b.WriteString("\nDiagnostics:\n")
		for _, d := range t.Diagnostics {
			fmt.Fprintf(&b, "- %s:%d: %s", t.File, d.Line, d.Message)
			if d.Source != "" {
				fmt.Fprintf(&b, " (%s)", d.Source)
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}
