package agent

import (
	_ "embed"
	"fmt"
	"strings"
	"time"
)

//go:embed prompt.md
var corePrompt string

// A ContextFile is a project context file (AGENTS.md, GEMINI.md) for the
// system prompt.
type ContextFile struct {
	Path    string // as the user sees it
	Content string
}

// A SkillInfo is a skill the model may activate, as the system prompt
// names it.
type SkillInfo struct {
	Name        string
	Description string
}

// Environment describes where the run works.
type Environment struct {
	OS      string
	Date    time.Time
	Folders []string // workspace folders
}

// buildSystemPrompt assembles the fixed preamble sent with every model call:
// the core instructions, the agent's own, the project context files and the
// environment. It is built once per run.
func buildSystemPrompt(cfg Config, def Definition) string {
	var b strings.Builder
	b.WriteString(corePrompt)
	if def.Instructions != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(def.Instructions))
		b.WriteString("\n")
	}
	if len(cfg.Context) > 0 {
		b.WriteString("\n# Project context\nInstructions from the project's context files; follow them.\n")
		for _, f := range cfg.Context {
			fmt.Fprintf(&b, "\n<context file=%q>\n%s\n</context>\n", f.Path, strings.TrimSpace(f.Content))
		}
	}
	if len(cfg.Skills) > 0 {
		b.WriteString("\n# Skills\nA skill is a procedure for one kind of task. When the task matches a skill's description, call activate_skill with its name before you start, and follow its instructions.\n")
		for _, s := range cfg.Skills {
			fmt.Fprintf(&b, "- %s: %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
		}
	}
	if e := cfg.Environment; e != nil {
		b.WriteString("\n# Environment\n")
		if !e.Date.IsZero() {
			fmt.Fprintf(&b, "Date: %s.", e.Date.Format("Monday, 2 January 2006"))
		}
		if e.OS != "" {
			fmt.Fprintf(&b, " OS: %s.", e.OS)
		}
		if len(e.Folders) > 0 {
			fmt.Fprintf(&b, " Workspace folders: %s.", strings.Join(e.Folders, ", "))
		}
		b.WriteString("\n")
	}
	if cfg.System != "" {
		b.WriteString("\n")
		b.WriteString(strings.TrimSpace(cfg.System))
		b.WriteString("\n")
	}
	return b.String()
}

// systemPrompt is the run's fixed preamble.
func (r *run) systemPrompt() string { return r.sysPrompt }

// taskMessage is the user's first message: the task and its editor context.
func taskMessage(t Task) string {
	var b strings.Builder
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "Note: %s\n\n", strings.TrimSpace(n))
	}
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
