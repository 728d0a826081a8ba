package contract_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/contract"
)

func readDoc(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDocsListTheVocabularies fails when a page of docs/ misses a word of
// the contract: an event type, a stop reason, an outcome, a command, an
// action or a setting.
func TestDocsListTheVocabularies(t *testing.T) {
	t.Parallel()
	events, protocol, settings := readDoc(t, "events.md"), readDoc(t, "protocol.md"), readDoc(t, "settings.md")
	check := func(page, text string, words []string) {
		for _, w := range words {
			if !strings.Contains(text, "`"+w+"`") {
				t.Errorf("docs/%s does not mention `%s`", page, w)
			}
		}
	}
	check("events.md", events, strs(contract.EventTypes))
	check("events.md", events, strs(contract.StopReasons))
	check("events.md", events, strs(contract.Outcomes))
	check("protocol.md", protocol, contract.Commands)
	check("protocol.md", protocol, contract.Actions)
	for _, key := range contract.SettingKeys() {
		if !strings.Contains(settings, "| `"+key+"` |") {
			t.Errorf("docs/settings.md has no row for the setting `%s`", key)
		}
	}
}

func strs[T ~string](vs []T) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = string(v)
	}
	return out
}

// TestVSCodeSettings checks that the VS Code extension's settings page
// (package.json) offers every setting the user sets, with the server's
// default and allowed values.
func TestVSCodeSettings(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join("..", "editors", "vscode", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Default json.RawMessage `json:"default"`
					Enum    []string        `json:"enum"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(contract.DefaultSettings())
	var defaults map[string]json.RawMessage
	json.Unmarshal(def, &defaults)
	props := pkg.Contributes.Configuration.Properties
	for _, key := range contract.SettingKeys() {
		p, ok := props["agentls."+key]
		if slices.Contains(contract.PluginSettings, key) {
			if ok {
				t.Errorf("package.json offers agentls.%s, which the extension sets itself", key)
			}
			continue
		}
		if !ok {
			t.Errorf("package.json lacks the setting agentls.%s", key)
			continue
		}
		if got, want := compact(p.Default), compact(defaults[key]); got != want {
			t.Errorf("agentls.%s: package.json default %s, the server's %s", key, got, want)
		}
		if diff := cmp.Diff(contract.SettingEnums[key], p.Enum); diff != "" {
			t.Errorf("agentls.%s: enum (-server +package.json):\n%s", key, diff)
		}
	}
}

func compact(raw json.RawMessage) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return fmt.Sprintf("invalid (%s)", raw)
	}
	b, _ := json.Marshal(v)
	return string(b)
}
