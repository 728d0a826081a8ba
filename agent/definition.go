package agent

import (
	"time"

	"github.com/google/jsonschema-go/jsonschema"
)

// Default limits.
const (
	DefaultMaxTurns         = 100
	DefaultSubagentMaxTurns = 30
	DefaultSubagentTimeout  = 10 * time.Minute
)

// A Definition describes an agent: what it is told, which tools it may use,
// its limits, and the shape of its answer.
type Definition struct {
	// Name identifies the agent ("main", "codebase_investigator"); run ids
	// start with it.
	Name        string
	Description string
	// Instructions is the agent's own system prompt, appended to the core
	// instructions.
	Instructions string
	// Tools names the tools of the registry this agent may see and call; nil
	// means all of them.
	Tools []string
	// Model overrides the model; "" means the run's model.
	Model    string
	MaxTurns int           // 0: DefaultMaxTurns
	Timeout  time.Duration // 0: no limit
	// Grace is how long the final warning turn may take; 0: DefaultGrace.
	Grace time.Duration
	// OutputSchema, if set, is the schema of complete_task's arguments;
	// otherwise complete_task takes {"result": string}.
	OutputSchema *jsonschema.Schema
}

// A Task is what the user asked for, with the editor context it came with.
type Task struct {
	Prompt      string
	File        string     // absolute path of the active file, if any
	Selection   *Selection // the selected text, if any
	Diagnostics []Diagnostic
	// Notes tell the model, before the task, what happened since its last
	// task in the same conversation ("the user reverted …").
	Notes []string
}

// A Selection is a range of the active file, in 1-based lines.
type Selection struct {
	StartLine, EndLine int
	Text               string
}

// A Diagnostic is a problem the editor reported in the task's scope.
type Diagnostic struct {
	Line     int    `json:"line"` // 1-based
	Severity string `json:"severity,omitempty"`
	Source   string `json:"source,omitempty"`
	Message  string `json:"message"`
}
