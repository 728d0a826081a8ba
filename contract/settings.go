package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/agentls/agentls/agent"
)

// Settings are the user's settings. The server reads them from the
// defaults, then initializationOptions, then the client's
// workspace/configuration section "agentls"; docs/settings.md documents
// them and a test keeps it honest.
type Settings struct {
	Model string `json:"model" jsonschema:"the Gemini model of runs; auto routes each run between a fast and a strong model"`
	// FastModel, StrongModel and ClassifierModel are the router's models,
	// for model "auto".
	FastModel       string  `json:"fastModel" jsonschema:"with model auto: the model of simple, well-defined tasks"`
	StrongModel     string  `json:"strongModel" jsonschema:"with model auto: the model of tasks that need deep reasoning"`
	ClassifierModel string  `json:"classifierModel" jsonschema:"with model auto: the model that picks the fast or the strong one, once per run"`
	Confirm         string  `json:"confirm" jsonschema:"each: every change is proposed at once; run: changes are staged and proposed together when the run finishes"`
	ApprovalMode    string  `json:"approvalMode" jsonschema:"plan: read-only runs; default: changes are confirmed and risky tools ask; autoEdit: changes are sent without confirmation"`
	MaxTurns        int     `json:"maxTurns" jsonschema:"model turns per run"`
	TimeoutMinutes  float64 `json:"timeoutMinutes" jsonschema:"time limit of a run, not counting time waiting for the user; 0: none"`
	// ShellTimeoutSeconds limits one shell command (0: two minutes).
	ShellTimeoutSeconds float64 `json:"shellTimeoutSeconds" jsonschema:"time limit of one shell command; 0: two minutes"`
	// LoopDetection warns a model that repeats itself, then asks the user
	// whether to go on; off, nothing is detected.
	LoopDetection bool `json:"loopDetection" jsonschema:"warn a model that repeats itself, then ask whether to keep going; false: never"`
	// Web offers the web tools: web_fetch (each fetch asks) and
	// google_web_search.
	Web bool `json:"web" jsonschema:"offer web_fetch (each fetch asks, unless a policy rule allows the host) and google_web_search; false: runs never reach the web"`
	// WebPrivateNetwork lets web_fetch reach loopback, private and
	// link-local addresses, and plain http on loopback ones.
	WebPrivateNetwork bool `json:"webPrivateNetwork" jsonschema:"let web_fetch reach loopback, private and link-local addresses (and plain http on localhost); false: only public https"`
	// WebInPlanMode keeps the web tools in plan mode, which is read-only.
	WebInPlanMode bool `json:"webInPlanMode" jsonschema:"keep the web tools in plan mode (they change nothing); false: plan mode runs stay off the web"`
	// MaxBudget caps what one run may spend, in US dollars, as estimated
	// from the price of its tokens (0: no cap).
	MaxBudget float64 `json:"maxBudget" jsonschema:"what one run may spend, in US dollars, estimated from its tokens' prices; past it the model gets one last turn; 0: no limit"`
	// Prices override agentls's price list, by model name.
	Prices map[string]agent.Price `json:"prices" jsonschema:"model prices in US dollars per million tokens, by model name, over agentls's own list"`
	Events bool                   `json:"events" jsonschema:"send agentls/event notifications (plugins turn it on)"`
	// Diagnostics says the client sends agentls/diagnostics, so the server
	// waits for them after an accepted proposal.
	Diagnostics   bool           `json:"diagnostics" jsonschema:"the client sends agentls/diagnostics (plugins turn it on)"`
	CustomActions []CustomAction `json:"customActions" jsonschema:"code actions of your own"`
	// MCPServers are the MCP servers whose tools runs may call, by name
	// (mcp.go).
	MCPServers map[string]MCPServer `json:"mcpServers" jsonschema:"MCP servers whose tools runs may call, by name, with Gemini CLI's keys"`
	// TraceMaxAgeDays and TraceMaxSizeMB bound the traces kept: the newest
	// runs, as long as they are younger and fit together (0: no limit).
	TraceMaxAgeDays float64 `json:"traceMaxAgeDays" jsonschema:"traces older than this many days are deleted; 0: no age limit"`
	TraceMaxSizeMB  float64 `json:"traceMaxSizeMB" jsonschema:"the newest traces are kept up to this many megabytes in all; 0: no size limit"`
}

// A CustomAction is a code action the user defined: a title and a prompt
// template that may use ${selection}, ${file} and ${diagnostics}.
type CustomAction struct {
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
}

// DefaultModel is the model of runs when the settings name none.
const DefaultModel = agent.DefaultModel

// DefaultSettings are the settings when the user gives none. The models
// are package agent's defaults, the API's "-latest" aliases.
func DefaultSettings() Settings {
	return Settings{Model: DefaultModel, FastModel: agent.DefaultFastModel, StrongModel: agent.DefaultStrongModel,
		ClassifierModel: agent.DefaultClassifierModel, Confirm: "each", ApprovalMode: "default", MaxTurns: 100,
		LoopDetection: true, Web: true, WebInPlanMode: true, CustomActions: []CustomAction{}, Prices: map[string]agent.Price{}, MCPServers: map[string]MCPServer{},
		TraceMaxAgeDays: 30, TraceMaxSizeMB: 100}
}

// SettingEnums are the allowed values of the settings that take one of a
// few strings.
var SettingEnums = map[string][]string{
	"confirm":      {"each", "run"},
	"approvalMode": {"plan", "default", "autoEdit"},
}

// PluginSettings are the settings a plugin sets for the user, not the user
// (editor settings pages leave them out).
var PluginSettings = []string{"events", "diagnostics"}

// A setting decodes and checks one key into Settings.
type setting func(s *Settings, v json.RawMessage) error

var settingsByKey = map[string]setting{
	"model":               field(func(s *Settings) *string { return &s.Model }, nonEmpty),
	"fastModel":           field(func(s *Settings) *string { return &s.FastModel }, nonEmpty),
	"strongModel":         field(func(s *Settings) *string { return &s.StrongModel }, nonEmpty),
	"classifierModel":     field(func(s *Settings) *string { return &s.ClassifierModel }, nonEmpty),
	"loopDetection":       field(func(s *Settings) *bool { return &s.LoopDetection }, func(bool) error { return nil }),
	"confirm":             field(func(s *Settings) *string { return &s.Confirm }, oneOf("confirm")),
	"approvalMode":        field(func(s *Settings) *string { return &s.ApprovalMode }, oneOf("approvalMode")),
	"maxTurns":            field(func(s *Settings) *int { return &s.MaxTurns }, func(n int) error { return positive(float64(n)) }),
	"timeoutMinutes":      field(func(s *Settings) *float64 { return &s.TimeoutMinutes }, nonNegative),
	"shellTimeoutSeconds": field(func(s *Settings) *float64 { return &s.ShellTimeoutSeconds }, nonNegative),
	"events":              field(func(s *Settings) *bool { return &s.Events }, func(bool) error { return nil }),
	"web":                 field(func(s *Settings) *bool { return &s.Web }, func(bool) error { return nil }),
	"webPrivateNetwork":   field(func(s *Settings) *bool { return &s.WebPrivateNetwork }, func(bool) error { return nil }),
	"webInPlanMode":       field(func(s *Settings) *bool { return &s.WebInPlanMode }, func(bool) error { return nil }),
	"diagnostics":         field(func(s *Settings) *bool { return &s.Diagnostics }, func(bool) error { return nil }),
	"customActions":       field(func(s *Settings) *[]CustomAction { return &s.CustomActions }, validActions),
	"traceMaxAgeDays":     field(func(s *Settings) *float64 { return &s.TraceMaxAgeDays }, nonNegative),
	"traceMaxSizeMB":      field(func(s *Settings) *float64 { return &s.TraceMaxSizeMB }, nonNegative),
	"maxBudget":           field(func(s *Settings) *float64 { return &s.MaxBudget }, nonNegative),
	"prices":              field(func(s *Settings) *map[string]agent.Price { return &s.Prices }, validPrices),
	"mcpServers":          nil, // merged server by server (Merge)
}

// SettingKeys are the keys of the settings, sorted.
func SettingKeys() []string {
	keys := make([]string, 0, len(settingsByKey))
	for k := range settingsByKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ParseSettings reads settings over the defaults. Unknown keys and bad values
// are reported, never silently ignored; a bad value keeps its default.
func ParseSettings(raw json.RawMessage) (Settings, []string) {
	s := DefaultSettings()
	problems := s.Merge(raw)
	return s, problems
}

// Merge reads the settings in raw over s: an object of settings, or an
// object whose only key is "agentls" holding one. Keys raw does not name keep
// their value; unknown keys and bad values are reported and change nothing.
// The servers of mcpServers are merged by name, each one checked on its
// own; they count as the user's own (see [MCPServer.Scope]).
func (s *Settings) Merge(raw json.RawMessage) []string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return []string{fmt.Sprintf("settings must be an object: %v", err)}
	}
	if inner, ok := m["agentls"]; ok && len(m) == 1 {
		m = nil
		if err := json.Unmarshal(inner, &m); err != nil {
			return []string{fmt.Sprintf("settings.agentls must be an object: %v", err)}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var problems []string
	for _, k := range keys {
		set, ok := settingsByKey[k]
		if !ok {
			problems = append(problems, fmt.Sprintf("unknown setting %q", k))
			continue
		}
		if k == "mcpServers" {
			var ps []string
			s.MCPServers, ps = mergeServers(s.MCPServers, m[k], ScopeUser)
			problems = append(problems, ps...)
			continue
		}
		if err := set(s, m[k]); err != nil {
			problems = append(problems, fmt.Sprintf("%s: %v", k, err))
		}
	}
	return problems
}

// field decodes a value into the field get names if it decodes and passes
// check; otherwise the field keeps its value and the problem is returned.
func field[T any](get func(*Settings) *T, check func(T) error) setting {
	return func(s *Settings, v json.RawMessage) error {
		var x T
		dec := json.NewDecoder(bytes.NewReader(v))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&x); err != nil {
			if strings.Contains(err.Error(), "unknown field") {
				return errors.New(strings.TrimPrefix(err.Error(), "json: "))
			}
			return fmt.Errorf("wrong type (%s)", strings.TrimSpace(string(v)))
		}
		if err := check(x); err != nil {
			return err
		}
		*get(s) = x
		return nil
	}
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

func oneOf(key string) func(string) error {
	values := SettingEnums[key]
	return func(s string) error {
		if slices.Contains(values, s) {
			return nil
		}
		return fmt.Errorf("%q is not one of %s", s, strings.Join(values, ", "))
	}
}

func positive(n float64) error {
	if n <= 0 {
		return fmt.Errorf("must be positive, not %v", n)
	}
	return nil
}

func nonNegative(n float64) error {
	if n < 0 {
		return fmt.Errorf("must not be negative, not %v", n)
	}
	return nil
}

func validPrices(ps map[string]agent.Price) error {
	for name, p := range ps {
		if strings.TrimSpace(name) == "" {
			return fmt.Errorf("a price needs a model name")
		}
		for _, v := range []float64{p.Input, p.CachedInput, p.Output, p.LongInput, p.LongCached, p.LongOutput} {
			if v < 0 {
				return fmt.Errorf("%s: prices must not be negative", name)
			}
		}
		if p.LongAbove < 0 {
			return fmt.Errorf("%s: longAbove must not be negative", name)
		}
	}
	return nil
}

func validActions(as []CustomAction) error {
	for i, a := range as {
		if strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Prompt) == "" {
			return fmt.Errorf("action %d needs a title and a prompt", i+1)
		}
	}
	return nil
}
