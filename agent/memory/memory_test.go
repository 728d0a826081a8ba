package memory_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent/memory"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	for fact, want := range map[string]string{
		"  The user prefers tabs.  ":          "",
		"":                                    "the fact is empty",
		"one\ntwo":                            "spans several lines",
		"line\u2028separator":                 "spans several lines",
		"red \x1b[31malert":                   "control or invisible character U+001B",
		"tab\there":                           "U+0009",
		"nul\x00":                             "U+0000",
		"bidi \u202eevil":                     "U+202E",
		"zero\u200bwidth":                     "U+200B",
		strings.Repeat("x", memory.MaxFact+1): "longer than 1000 characters",
	} {
		got, err := memory.Check(fact)
		switch {
		case want == "" && (err != nil || got != strings.TrimSpace(fact)):
			t.Errorf("Check(%q) = %q, %v", fact, got, err)
		case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
			t.Errorf("Check(%q): err = %v, want %q", fact, err, want)
		}
	}
}

func TestAdd(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, in, want string }{
		{"empty file", "", "## Remembered facts\n\n- F\n"},
		{"no section", "# Project\n\nUse Go.\n", "# Project\n\nUse Go.\n\n## Remembered facts\n\n- F\n"},
		{"no final newline", "# Project", "# Project\n\n## Remembered facts\n\n- F\n"},
		{"section at the end", "# P\n\n## Remembered facts\n\n- A\n", "# P\n\n## Remembered facts\n\n- A\n- F\n"},
		{"section before another", "## Remembered facts\n- A\n\n## Style\nTabs.\n", "## Remembered facts\n- A\n- F\n\n## Style\nTabs.\n"},
		{"empty section before another", "## Remembered facts\n## Style\n", "## Remembered facts\n\n- F\n\n## Style\n"},
		{"a deeper heading stays in", "## Remembered facts\n- A\n### Old\n- B\n\n# End\n", "## Remembered facts\n- A\n### Old\n- B\n- F\n\n# End\n"},
		{"a fence is not a heading", "## Remembered facts\n```\n# not a heading\n```\n", "## Remembered facts\n```\n# not a heading\n```\n- F\n"},
	} {
		got := memory.Add(tc.in, "F")
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
		if !memory.Has(got, " f ") {
			t.Errorf("%s: Has does not find the fact it added", tc.name)
		}
	}
	if got := memory.Facts("## Remembered facts\n- A\n-  \n- B\n## X\n- C\n"); !cmp.Equal(got, []string{"A", "B"}) {
		t.Errorf("Facts = %q", got)
	}
}
