package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
)

// Settings are the user's settings: the defaults, then initializationOptions,
// then the client's workspace/configuration section "agentls" on top.
// docs/settings.md documents them.
type Settings struct {
	Model string `json:"model"`
	// FastModel, StrongModel and ClassifierModel are the router's models,
	// for model "auto".
	FastModel       string  `json:"fastModel"`
	StrongModel     string  `json:"strongModel"`
	ClassifierModel string  `json:"classifierModel"`
	Confirm         string  `json:"confirm"`      // "each" | "run"
	ApprovalMode    string  `json:"approvalMode"` // "plan" | "default" | "autoEdit"
	MaxTurns        int     `json:"maxTurns"`
	TimeoutMinutes  float64 `json:"timeoutMinutes"`
	// ShellTimeoutSeconds limits one shell command (0: two minutes).
	ShellTimeoutSeconds float64 `json:"shellTimeoutSeconds"`
	// LoopDetection warns a model that repeats itself, then asks the user
	// whether to go on; off, nothing is detected.
	LoopDetection bool           `json:"loopDetection"`
	Events        bool           `json:"events"`
	CustomActions []CustomAction `json:"customActions"`
}

// A CustomAction is a code action the user defined: a title and a prompt
// template that may use ${selection}, ${file} and ${diagnostics}.
type CustomAction struct {
	Title  string `json:"title"`
	Prompt string `json:"prompt"`
}

// DefaultSettings are the settings when the user gives none.
func DefaultSettings() Settings {
	return Settings{Model: agent.DefaultModel, FastModel: agent.DefaultFastModel, StrongModel: agent.DefaultStrongModel,
		ClassifierModel: agent.DefaultClassifierModel, Confirm: "each", ApprovalMode: "default", MaxTurns: 100, LoopDetection: true}
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
	var problems []string
	bad := func(key string, err error) {
		problems = append(problems, fmt.Sprintf("%s: %v", key, err))
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		v := m[k]
		switch k {
		case "model":
			decodeInto(v, &s.Model, k, bad, func(x string) error { return nonEmpty(x) })
		case "fastModel":
			decodeInto(v, &s.FastModel, k, bad, modelName)
		case "strongModel":
			decodeInto(v, &s.StrongModel, k, bad, modelName)
		case "classifierModel":
			decodeInto(v, &s.ClassifierModel, k, bad, modelName)
		case "loopDetection":
			decodeInto(v, &s.LoopDetection, k, bad, func(bool) error { return nil })
		case "confirm":
			decodeInto(v, &s.Confirm, k, bad, oneOf("each", "run"))
		case "approvalMode":
			decodeInto(v, &s.ApprovalMode, k, bad, oneOf("plan", "default", "autoEdit"))
		case "maxTurns":
			decodeInto(v, &s.MaxTurns, k, bad, func(n int) error { return positive(float64(n)) })
		case "timeoutMinutes":
			decodeInto(v, &s.TimeoutMinutes, k, bad, func(n float64) error { return nonNegative(n) })
		case "shellTimeoutSeconds":
			decodeInto(v, &s.ShellTimeoutSeconds, k, bad, func(n float64) error { return nonNegative(n) })
		case "events":
			decodeInto(v, &s.Events, k, bad, func(bool) error { return nil })
		case "customActions":
			decodeInto(v, &s.CustomActions, k, bad, validActions)
		default:
			problems = append(problems, fmt.Sprintf("unknown setting %q", k))
		}
	}
	return problems
}

// decodeInto decodes v into *dst if it decodes and passes check; otherwise
// *dst keeps its value and the problem is reported.
func decodeInto[T any](v json.RawMessage, dst *T, key string, bad func(string, error), check func(T) error) {
	var x T
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&x); err != nil {
		if strings.Contains(err.Error(), "unknown field") {
			bad(key, errors.New(strings.TrimPrefix(err.Error(), "json: ")))
		} else {
			bad(key, fmt.Errorf("wrong type (%s)", strings.TrimSpace(string(v))))
		}
		return
	}
	if err := check(x); err != nil {
		bad(key, err)
		return
	}
	*dst = x
}

func nonEmpty(s string) error {
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("must not be empty")
	}
	return nil
}

// modelName checks a router model: a model name, not "auto".
func modelName(s string) error {
	if err := nonEmpty(s); err != nil {
		return err
	}
	if s == agent.ModelAuto {
		return fmt.Errorf("must name a model, not %q", s)
	}
	return nil
}

func oneOf(values ...string) func(string) error {
	return func(s string) error {
		for _, v := range values {
			if s == v {
				return nil
			}
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

func validActions(as []CustomAction) error {
	for i, a := range as {
		if strings.TrimSpace(a.Title) == "" || strings.TrimSpace(a.Prompt) == "" {
			return fmt.Errorf("action %d needs a title and a prompt", i+1)
		}
	}
	return nil
}

// warnSettings tells the user which settings were not understood.
func (s *Server) warnSettings(ctx context.Context, problems []string) {
	msg := "agentls: settings ignored: " + strings.Join(problems, "; ")
	s.log.Warn(msg)
	s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
}
