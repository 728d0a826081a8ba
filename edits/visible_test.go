package edits

import "testing"

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in, want string
		hidden   bool
	}{
		{"go test ./...", "go test ./...", false},
		{"héllo, 世界 ✓ 🙂\n\tx", "héllo, 世界 ✓ 🙂\n\tx", false},
		{"rm -rf /\rgo test", `rm -rf /\x0dgo test`, true},
		{"\x1b[2K\x1b[1Agood", `\x1b[2K\x1b[1Agood`, true},
		{"a\u202eb", `a\u202eb`, true},
		{"\u2066x\u2069", `\u2066x\u2069`, true},
		{"zero\u200bwidth\ufeff", `zero\u200bwidth\ufeff`, true},
		{"tag\U000E0041", `tag\U000e0041`, true},
		{"c1\u009bx", `c1\x9bx`, true},
		{"bad\xffbyte", `bad\xffbyte`, true},
		{"del\x7f", `del\x7f`, true},
		{"sep\u2028x", `sep\u2028x`, true},
	}
	for _, tt := range tests {
		got, hidden := Visible(tt.in)
		if got != tt.want || hidden != tt.hidden {
			t.Errorf("Visible(%q) = %q, %v; want %q, %v", tt.in, got, hidden, tt.want, tt.hidden)
		}
	}
	if got, hidden := VisibleLine("a\nb\tc"); got != `a\nb\tc` || !hidden {
		t.Errorf("VisibleLine = %q, %v", got, hidden)
	}
}
