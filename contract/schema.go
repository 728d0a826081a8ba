package contract

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
)

// SchemaNames are the names of the contract's schemas, in the order
// [Schemas] lists them: each names a type of this package and is the name
// of its file under docs/schema.
var SchemaNames = []string{
	"RunArgs", "RunResult", "CancelArgs", "ApprovalsArgs", "ApprovalsResult",
	"SessionsArgs", "SessionsResult", "RevertArgs", "RevertResult",
	"EventNotification", "ApplyResult", "Settings", "DiagnosticsParams",
}

// eventFields is agent.Event under another name, so that its schema can
// stop the type's recursion (Inner) with a reference.
type eventFields agent.Event

type eventNotification struct {
	Seq       int64  `json:"seq"`
	SessionID string `json:"sessionId,omitempty"`
	eventFields
	Proposal *ProposalReport `json:"proposal,omitempty"`
}

// Schemas returns the JSON Schemas of the contract's types, by name.
func Schemas() (map[string]*jsonschema.Schema, error) {
	opts := &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[time.Time]():       {Type: "string", Format: "date-time"},
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON value"},
		// LSP's own types are named, not spelled out: editors have them.
		reflect.TypeFor[protocol.Range]():      lspType("Range"),
		reflect.TypeFor[protocol.Diagnostic](): lspType("Diagnostic"),
		// Inner is replaced by a reference below.
		reflect.TypeFor[agent.Event](): {Type: "object"},
	}}
	out := make(map[string]*jsonschema.Schema)
	var err error
	add := func(name string, s *jsonschema.Schema, e error) {
		if e != nil && err == nil {
			err = fmt.Errorf("schema %s: %w", name, e)
		}
		out[name] = s
	}
	add(schemaFor[RunArgs]("RunArgs", opts))
	add(schemaFor[RunResult]("RunResult", opts))
	add(schemaFor[CancelArgs]("CancelArgs", opts))
	add(schemaFor[ApprovalsArgs]("ApprovalsArgs", opts))
	add(schemaFor[ApprovalsResult]("ApprovalsResult", opts))
	add(schemaFor[SessionsArgs]("SessionsArgs", opts))
	add(schemaFor[SessionsResult]("SessionsResult", opts))
	add(schemaFor[RevertArgs]("RevertArgs", opts))
	add(schemaFor[RevertResult]("RevertResult", opts))
	add(schemaFor[ApplyResult]("ApplyResult", opts))
	add(schemaFor[Settings]("Settings", opts))
	add(schemaFor[DiagnosticsParams]("DiagnosticsParams", opts))
	if err != nil {
		return nil, err
	}
	ev, err := jsonschema.For[eventFields](opts)
	if err != nil {
		return nil, fmt.Errorf("schema Event: %w", err)
	}
	n, err := jsonschema.For[eventNotification](opts)
	if err != nil {
		return nil, fmt.Errorf("schema EventNotification: %w", err)
	}
	const ref = "#/$defs/Event"
	eventVocabulary(ev, ref)
	eventVocabulary(n, ref)
	n.Defs = map[string]*jsonschema.Schema{"Event": ev}
	n.Title, n.Description = "EventNotification", "The params of the agentls/event notification."
	out["EventNotification"] = n
	settingsVocabulary(out["Settings"])
	sessions := out["SessionsResult"].Properties["sessions"]
	runs := sessions.Items.Properties["runs"]
	runs.Items.Properties["end"].Properties["reason"].Enum = enum(StopReasons)
	rv := out["RevertResult"].Properties
	for _, a := range []*jsonschema.Schema{sessions, runs, rv["files"]} {
		a.Type, a.Types = "array", nil // the server sends [], never null
	}
	rv["outcome"].Enum = enum(Outcomes)
	rv["files"].Items.Properties["outcome"].Enum = enum(RevertOutcomes)
	return out, nil
}

// lspPrefix starts the title of a schema that stands for an LSP type.
const lspPrefix = "LSP "

func lspType(name string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Title: lspPrefix + name,
		Description: "an LSP " + name + " (Language Server Protocol 3.17)"}
}

func schemaFor[T any](name string, opts *jsonschema.ForOptions) (string, *jsonschema.Schema, error) {
	s, err := jsonschema.For[T](opts)
	if s != nil {
		s.Title = name
	}
	return name, s, err
}

// eventVocabulary closes the open strings of an event schema with the
// vocabularies of package agent, and makes Inner a reference to the event
// schema at ref.
func eventVocabulary(s *jsonschema.Schema, ref string) {
	p := s.Properties
	p["type"].Enum = enum(EventTypes)
	p["inner"] = &jsonschema.Schema{Ref: ref, Description: "the subagent's own event, on subagent_activity"}
	end := p["end"].Properties
	end["reason"].Enum = enum(StopReasons)
	for _, name := range []string{"edit"} {
		p[name].Properties["outcome"].Enum = enum(Outcomes)
	}
	p["subagent"].Properties["end"].Properties["reason"].Enum = enum(StopReasons)
	if prop, ok := p["proposal"]; ok {
		prop.Properties["outcome"].Enum = enum(Outcomes)
		prop.Properties["files"].Items.Properties["outcome"].Enum = enum(Outcomes)
	}
}

func settingsVocabulary(s *jsonschema.Schema) {
	def, _ := json.Marshal(DefaultSettings())
	var defaults map[string]json.RawMessage
	json.Unmarshal(def, &defaults)
	for key, p := range s.Properties {
		if vs, ok := SettingEnums[key]; ok {
			p.Enum = enum(vs)
		}
		p.Default = defaults[key]
	}
	// The checks of settingsByKey, for validators that read the schema (the
	// VS Code extension's).
	const notBlank = `\S`
	for _, key := range []string{"model", "fastModel", "strongModel", "classifierModel"} {
		s.Properties[key].Pattern = notBlank
	}
	s.Properties["maxTurns"].ExclusiveMinimum = jsonschema.Ptr(0.0)
	s.Properties["timeoutMinutes"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["shellTimeoutSeconds"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["traceMaxAgeDays"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["traceMaxSizeMB"].Minimum = jsonschema.Ptr(0.0)
	s.Properties["maxBudget"].Minimum = jsonschema.Ptr(0.0)
	for _, p := range s.Properties["prices"].AdditionalProperties.Properties {
		p.Minimum = jsonschema.Ptr(0.0)
	}
	action := s.Properties["customActions"]
	action.Type, action.Types = "array", nil // null means the default
	for _, p := range action.Items.Properties {
		p.Pattern = notBlank
	}
	servers := s.Properties["mcpServers"]
	servers.Type, servers.Types = "object", nil
	server := servers.AdditionalProperties
	for _, p := range server.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil // left out, never null
		}
	}
	server.Properties["type"].Enum = []any{TransportSSE, TransportHTTP}
	server.Properties["timeout"].Minimum = jsonschema.Ptr(0.0)
	s.Required = nil // every key may be left out
}

func enum[T ~string](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range slices.Clone(vs) {
		out[i] = string(v)
	}
	return out
}
