package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line  string
		parts []string
		subst bool
		redir bool
	}{
		{line: "go test ./...", parts: []string{"go test ./..."}},
		{line: "  go   test\t./...  ", parts: []string{"go test ./..."}},
		{line: "cd .. && rm -rf x", parts: []string{"cd ..", "rm -rf x"}},
		{line: "a; b || c | d & e\nf", parts: []string{"a", "b", "c", "d", "e", "f"}},
		{line: "(cd sub; make) |& tee log", parts: []string{"cd sub", "make", "tee log"}},
		{line: `echo "a; b && c" 'd | e'`, parts: []string{`echo "a; b && c" 'd | e'`}},
		{line: `echo a\;b`, parts: []string{`echo a\;b`}},
		{line: "go test # ; rm -rf /", parts: []string{"go test"}},
		{line: "echo a#b", parts: []string{"echo a#b"}},
		{line: "echo $(rm -rf /)", parts: []string{"echo $", "rm -rf /"}, subst: true},
		{line: "echo `id`", parts: []string{"echo `id`"}, subst: true},
		{line: `echo "$(id)"`, parts: []string{`echo "$(id)"`}, subst: true},
		{line: "echo '$(id)'", parts: []string{"echo '$(id)'"}},
		{line: "diff <(ls a) <(ls b)", parts: []string{"diff <", "ls a", "<", "ls b"}, subst: true},
		{line: "go test > out.txt", parts: []string{"go test > out.txt"}, redir: true},
		{line: "go test >>out.txt", parts: []string{"go test >>out.txt"}, redir: true},
		{line: "sort < in.txt", parts: []string{"sort < in.txt"}, redir: true},
		{line: "go test 2>&1", parts: []string{"go test 2>&1"}},
		{line: "go test >/dev/null 2>&1", parts: []string{"go test >/dev/null 2>&1"}},
		{line: "go test &> /dev/null", parts: []string{"go test &> /dev/null"}},
		{line: "go test &>log", parts: []string{"go test &>log"}, redir: true},
		{line: "echo x >&2", parts: []string{"echo x >&2"}},
		{line: "echo 'a > b'", parts: []string{"echo 'a > b'"}},
		{line: "", parts: nil},
	}
	for _, tt := range tests {
		c := ParseCommand(tt.line)
		if diff := cmp.Diff(tt.parts, c.Parts); diff != "" {
			t.Errorf("%q: parts (-want +got):\n%s", tt.line, diff)
		}
		if c.Substitution != tt.subst || c.Redirection != tt.redir {
			t.Errorf("%q: substitution %v, redirection %v; want %v, %v", tt.line, c.Substitution, c.Redirection, tt.subst, tt.redir)
		}
	}
}

func TestPrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line string
		want []string
	}{
		{"go test ./...", []string{"go test"}},
		{"git status", []string{"git status"}},
		{"ls -la", []string{"ls"}},
		{"make", []string{"make"}},
		{"cat main.go", []string{"cat"}},
		{"go vet ./... && go test ./... | tail -5", []string{"go vet", "go test", "tail"}},
		{"go test ./... && go test -race ./...", []string{"go test"}},
		{"npm run build 2>&1", []string{"npm run"}},
		{"go test > out.txt", nil},
		{"echo $(id)", nil},
		{"FOO=1 go test", nil},
		{"sudo make install", nil},
		{`"rm" -rf x`, nil},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Prefixes(tt.line)); diff != "" {
			t.Errorf("Prefixes(%q) (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestIsSecret(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		".env": true, "sub/.env.local": true, "prod.env": true, "certs/server.pem": true, "tls.key": true,
		"/home/u/.ssh/id_rsa": true, "id_ed25519": true, "credentials": true, ".aws/credentials.json": true,
		"gcp-credentials.json": true, ".netrc": true, ".git-credentials": true, "secrets.yaml": true, "ID_RSA": true,
		".env.example": false, "id_rsa.pub": false, "main.go": false, "environment.go": false, "secrets.go": false,
		"keys.go": false, ".envrc.md": false, "README": false,
	} {
		if got := IsSecret(p); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", p, got, want)
		}
	}
}
