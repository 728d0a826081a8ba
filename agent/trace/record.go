package trace

import (
	"encoding/json"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// Format is the version of the trace format, in every header.
const Format = 1

// Record types.
const (
	TypeHeader    = "header"
	TypeModelCall = "model_call"
	TypeEvent     = "event"
	TypePolicy    = "policy"
	TypeError     = "error"
)

// A Record is one line of a trace; the field named by Type is set.
type Record struct {
	Type   string       `json:"type"`
	Header *Header      `json:"header,omitempty"`
	Call   *ModelCall   `json:"call,omitempty"`
	Event  *agent.Event `json:"event,omitempty"`
	Policy *PolicyCheck `json:"policy,omitempty"`
	Error  string       `json:"error,omitempty"`
}

// A Header opens a trace: what was asked, and how the run was set up.
type Header struct {
	Format    int       `json:"format"`
	Version   string    `json:"version"` // agentls's
	RunID     string    `json:"runId"`
	Started   time.Time `json:"time"`
	Workspace string    `json:"workspace"`
	Task      Task      `json:"task"`
	// Model is the model setting; "auto" routes.
	Model string `json:"model"`
	// Settings are the caller's settings (flags, LSP settings).
	Settings map[string]any `json:"settings,omitempty"`
	Agent    AgentDef       `json:"agent"`
	// Subagents are the agents the run could start.
	Subagents []AgentDef `json:"subagents,omitempty"`
	// Skills are the skills the run could activate.
	Skills []Skill `json:"skills,omitempty"`
	// UserDir is the user's agentls folder of the run: its skills, and
	// the AGENTS.md save_memory keeps the user's facts in.
	UserDir string `json:"userDir,omitempty"`
	// Tools is the tool profile: the tools the main agent was offered.
	Tools []string `json:"tools"`
	// MCPTools are the tools of MCP servers the run offered (to the main
	// agent, or to a subagent that lists them), as declared: a replay
	// declares them again, with no server.
	MCPTools      []MCPTool    `json:"mcpTools,omitempty"`
	Context       []Context    `json:"context,omitempty"`
	Environment   *Environment `json:"environment,omitempty"`
	ContextWindow int          `json:"contextWindow,omitempty"`
	CompressAt    float64      `json:"compressAt,omitempty"`
	// Session is the session the run belongs to, and History the
	// conversation it continued (its session's earlier runs), so that a
	// replay starts where the run did.
	Session string           `json:"session,omitempty"`
	History []*genai.Content `json:"history,omitempty"`
}

// An MCPTool is a tool of an MCP server as a run declared it.
type MCPTool struct {
	Name        string          `json:"name"`   // mcp_{server}_{tool}
	Server      string          `json:"server"` // the server's name in the settings
	Tool        string          `json:"tool"`   // the tool's name on the server
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
	Trusted     bool            `json:"trusted,omitempty"`
}

// A Task is agent.Task as a trace records it.
type Task struct {
	Prompt      string             `json:"prompt"`
	File        string             `json:"file,omitempty"`
	Selection   *Selection         `json:"selection,omitempty"`
	Diagnostics []agent.Diagnostic `json:"diagnostics,omitempty"`
	Notes       []string           `json:"notes,omitempty"`
}

// A Selection is agent.Selection as a trace records it.
type Selection struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}

// Context names a project context file of the run, and its size; its
// content stays out of the trace.
type Context struct {
	Path  string `json:"path"`
	Bytes int    `json:"bytes"`
	// Memories counts the facts of its section of remembered facts.
	Memories int `json:"memories,omitempty"`
}

// A Skill is a skill a run could activate: where it was found, and how the
// system prompt named it.
type Skill struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	Path        string `json:"path"`   // its SKILL.md
	Source      string `json:"source"` // "user", or the workspace folder
}

// Environment is agent.Environment as a trace records it.
type Environment struct {
	OS      string    `json:"os,omitempty"`
	Date    time.Time `json:"date,omitzero"`
	Folders []string  `json:"folders,omitempty"`
}

// AgentDef is agent.Definition as a trace records it.
type AgentDef struct {
	Name         string             `json:"name"`
	Description  string             `json:"description,omitempty"`
	Instructions string             `json:"instructions,omitempty"`
	Tools        []string           `json:"tools"` // null: every tool
	Model        string             `json:"model,omitempty"`
	MaxTurns     int                `json:"maxTurns,omitempty"`
	Timeout      time.Duration      `json:"timeoutNs,omitempty"`
	Grace        time.Duration      `json:"graceNs,omitempty"`
	OutputSchema *jsonschema.Schema `json:"outputSchema,omitempty"`
}

// NewAgentDef records d.
func NewAgentDef(d agent.Definition) AgentDef {
	return AgentDef{Name: d.Name, Description: d.Description, Instructions: d.Instructions, Tools: d.Tools,
		Model: d.Model, MaxTurns: d.MaxTurns, Timeout: d.Timeout, Grace: d.Grace, OutputSchema: d.OutputSchema}
}

// Definition is the recorded definition.
func (a AgentDef) Definition() agent.Definition {
	return agent.Definition{Name: a.Name, Description: a.Description, Instructions: a.Instructions, Tools: a.Tools,
		Model: a.Model, MaxTurns: a.MaxTurns, Timeout: a.Timeout, Grace: a.Grace, OutputSchema: a.OutputSchema}
}

// A ModelCall is one model call: what went in, and the full answer.
type ModelCall struct {
	PromptID string    `json:"promptId"`
	RunID    string    `json:"runId"`
	Seq      int       `json:"seq"` // 1, 2… among the calls of one prompt id (a compression summary comes first)
	Started  time.Time `json:"time"`
	Model    string    `json:"model,omitempty"`
	// Asked summarizes what the call answers (see [Asked]); a replay
	// compares it.
	Asked    []string                         `json:"asked"`
	Context  CallContext                      `json:"context"`
	Chunks   []*genai.GenerateContentResponse `json:"chunks,omitempty"`
	Usage    *agent.Usage                     `json:"usage,omitempty"`
	Retries  []agent.RetryInfo                `json:"retries,omitempty"`
	Error    string                           `json:"error,omitempty"`
	Duration time.Duration                    `json:"durationNs"`
}

// CallContext is what went into a model call.
type CallContext struct {
	// Files are the project context files in the system prompt.
	Files []string `json:"files,omitempty"`
	// Memories counts the remembered facts those files hold.
	Memories int `json:"memories,omitempty"`
	// Skills are the skills whose instructions are in the history sent
	// (activated, and not compressed away).
	Skills   []string `json:"skills,omitempty"`
	Contents int      `json:"contents"` // history contents sent
	Turns    int      `json:"turns"`    // the model's turns among them
	Tools    int      `json:"tools"`    // tools declared
	// Tokens estimates the prompt: system prompt, tools and history, four
	// bytes a token.
	Tokens int `json:"tokens"`
}

// A PolicyCheck is the policy's verdict on one tool call.
type PolicyCheck struct {
	// RunID and CallID name the call, when the trace could tell which.
	RunID   string          `json:"runId,omitempty"`
	CallID  string          `json:"callId,omitempty"`
	Agent   string          `json:"agent"`
	Tool    string          `json:"tool"`
	Args    json.RawMessage `json:"args,omitempty"`
	Verdict agent.Verdict   `json:"verdict"`
	Rule    string          `json:"rule,omitempty"`
	Message string          `json:"message,omitempty"`
}
