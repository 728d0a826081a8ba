package lsp

import (
	"testing"
)

func TestExpand(t *testing.T) {
	t.Parallel()
	v := templateVars{selection: "x := 1", file: "a.go", diagnostics: "unused x"}
	got := expand("In ${file}, ${instruction}: ${selection} (${diagnostics}) ${other}", v)
	if want := "In a.go, make it simpler and clearer: x := 1 (unused x) ${other}"; got != want {
		t.Errorf("expand = %q, want %q", got, want)
	}
}

func TestFirstLines(t *testing.T) {
	t.Parallel()
	tests := []struct{ in, want string }{
		{"one", "one"},
		{"a\n\nb\n\nc\n\nd", "a\nb\nc…"},
		{"a\nb", "a\nb"},
		{"abcdefghij", "abcd…"},
	}
	for _, tt := range tests {
		if got := firstLines(tt.in, 3, 5); got != tt.want {
			t.Errorf("firstLines(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
