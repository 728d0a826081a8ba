package contract

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
)

func TestSettingsMerge(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	p1 := s.Merge(json.RawMessage(`{"agentls": {"confirm": "run", "maxTurns": 0, "mode": "x"}}`))
	p2 := s.Merge(json.RawMessage(`{"maxTurns": 7, "events": "yes", "customActions": [{"title": "T", "prompt": "P ${selection}"}]}`))
	want := DefaultSettings()
	want.Confirm, want.MaxTurns = "run", 7
	want.CustomActions = []CustomAction{{Title: "T", Prompt: "P ${selection}"}}
	if diff := cmp.Diff(want, s); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}
	wantProblems := []string{`maxTurns: must be positive, not 0`, `unknown setting "mode"`, `events: wrong type ("yes")`}
	if diff := cmp.Diff(wantProblems, append(p1, p2...)); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestSettingsBadValues(t *testing.T) {
	t.Parallel()
	tests := []struct{ raw, problem string }{
		{`{"confirm": "later"}`, `confirm: "later" is not one of each, run`},
		{`{"approvalMode": "yolo"}`, `approvalMode: "yolo" is not one of plan, default, autoEdit`},
		{`{"model": " "}`, `model: must not be empty`},
		{`{"timeoutMinutes": -1}`, `timeoutMinutes: must not be negative, not -1`},
		{`{"customActions": [{"title": "x"}]}`, `customActions: action 1 needs a title and a prompt`},
		{`{"customActions": [{"title": "x", "prompt": "y", "kind": "z"}]}`, `customActions: unknown field "kind"`},
		{`[1]`, `settings must be an object: json: cannot unmarshal array into Go value of type map[string]json.RawMessage`},
	}
	for _, tt := range tests {
		s, problems := ParseSettings(json.RawMessage(tt.raw))
		if len(problems) != 1 || problems[0] != tt.problem {
			t.Errorf("ParseSettings(%s) problems = %q, want [%q]", tt.raw, problems, tt.problem)
		}
		if diff := cmp.Diff(DefaultSettings(), s); diff != "" {
			t.Errorf("ParseSettings(%s) changed the settings:\n%s", tt.raw, diff)
		}
	}
}

// TestSettingsSchemaAgrees checks that the published schema of the settings
// accepts exactly the values Merge accepts, so an editor that validates
// with the schema tells the user what the server would.
func TestSettingsSchemaAgrees(t *testing.T) {
	t.Parallel()
	schemas, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	resolved, err := schemas["Settings"].Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	samples := []string{`""`, `" "`, `"x"`, `"auto"`, `"each"`, `"run"`, `"plan"`, `"default"`, `"autoEdit"`,
		`-1`, `0`, `1`, `2.5`, `100`, `true`, `false`, `[]`, `{}`,
		`[{"title": "a", "prompt": "b"}]`, `[{"title": " ", "prompt": "b"}]`, `[{"title": "a"}]`,
		`[{"title": "a", "prompt": "b", "kind": "c"}]`, `[1]`}
	for _, key := range SettingKeys() {
		for _, v := range samples {
			raw := `{"` + key + `": ` + v + `}`
			_, problems := ParseSettings(json.RawMessage(raw))
			var instance any
			if err := json.Unmarshal([]byte(raw), &instance); err != nil {
				t.Fatal(err)
			}
			schemaErr := resolved.Validate(instance)
			if (len(problems) == 0) != (schemaErr == nil) {
				t.Errorf("%s: Merge problems %q, schema says %v", raw, problems, schemaErr)
			}
		}
	}
}

func TestModelSettings(t *testing.T) {
	t.Parallel()
	s := DefaultSettings()
	if s.Model != agent.DefaultModel || s.FastModel != agent.DefaultFastModel || s.StrongModel != agent.DefaultStrongModel ||
		s.ClassifierModel != agent.DefaultClassifierModel || !s.LoopDetection {
		t.Errorf("defaults = %+v", s)
	}
	problems := s.Merge(json.RawMessage(`{"fastModel": "f", "strongModel": "gemini-3.1-pro-preview", "classifierModel": "", "loopDetection": false}`))
	if s.FastModel != "f" || s.StrongModel != "gemini-3.1-pro-preview" || s.ClassifierModel != agent.DefaultClassifierModel || s.LoopDetection {
		t.Errorf("merged = %+v", s)
	}
	if diff := cmp.Diff([]string{`classifierModel: must not be empty`}, problems); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}
