package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func callStrings(cs []Call) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.String())
	}
	return out
}

func TestParseCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line    string
		calls   []string
		complex string // a part of the reason, "" for a simple line
		redir   bool
	}{
		{line: "go test ./...", calls: []string{"go test ./..."}},
		{line: "  go   test\t./...  ", calls: []string{"go test ./..."}},
		{line: "cd .. && rm -rf x", calls: []string{"cd ..", "rm -rf x"}},
		{line: "a; b || c | d\nf", calls: []string{"a", "b", "c", "d", "f"}},
		{line: "(cd sub; make) |& tee log", calls: []string{"cd sub", "make", "tee log"}},
		{line: `echo "a; b && c" 'd | e'`, calls: []string{`echo 'a; b && c' 'd | e'`}},
		{line: `echo a\;b`, calls: []string{`echo 'a;b'`}},
		{line: "go test # ; rm -rf /", calls: []string{"go test"}},
		{line: "echo a#b", calls: []string{"echo 'a#b'"}},
		{line: `\rm a; 'rm' b; r''m c; $'\x72m' d`, calls: []string{"rm a", "rm b", "rm c", "rm d"}},
		{line: "echo $HOME *.go {a,b} ~/x", calls: []string{"echo $HOME *.go {a,b} ~/x"}},
		{line: "time go test", calls: []string{"go test"}},
		{line: "! go test", calls: []string{"go test"}},
		{line: "FOO=1 go test", calls: []string{"FOO=1 go test"}},
		// What the issue found: the old parser read these differently from bash.
		{line: `go test $'\'' ; touch x ; #'`, calls: []string{`go test "'"`, "touch x"}},
		{line: `go test x\ #; touch y`, calls: []string{"go test 'x #'", "touch y"}},
		{line: "go test >1file", calls: []string{"go test"}, redir: true},
		{line: "go test >|9file", calls: []string{"go test"}, redir: true},
		{line: "go test &>1file", calls: []string{"go test"}, redir: true},
		{line: "go test >&1file", calls: []string{"go test"}, redir: true},
		{line: "go test > out.txt", calls: []string{"go test"}, redir: true},
		{line: "sort < in.txt", calls: []string{"sort"}, redir: true},
		{line: "cat <<< hi", calls: []string{"cat"}, redir: true},
		{line: "go test 2>&1", calls: []string{"go test"}},
		{line: "go test >/dev/null 2>&1 3>&-", calls: []string{"go test"}},
		{line: "go test &> /dev/null", calls: []string{"go test"}},
		{line: "echo x >&2", calls: []string{"echo x"}},
		{line: "echo 'a > b'", calls: []string{"echo 'a > b'"}},
		{line: "", calls: nil},
		{line: "echo $(rm -rf /)", complex: "substitutes"},
		{line: "echo `id`", complex: "substitutes"},
		{line: `echo "$(id)"`, complex: "substitutes"},
		{line: "diff <(ls a) <(ls b)", complex: "substitutes"},
		{line: "echo $((1+2))", complex: "arithmetic"},
		{line: "cat <<EOF\nx\nEOF", complex: "here-document"},
		{line: "sleep 1 &", complex: "background"},
		{line: "if true; then rm x; fi", complex: "if"},
		{line: "for f in *; do rm $f; done", complex: "for"},
		{line: "f() { rm x; }; f", complex: "functions"},
		{line: "export PATH=.; go test", complex: "declarations"},
		{line: "PATH=.; go test", complex: "variables"},
		{line: "eval 'rm x'", complex: "eval"},
		{line: "sh -c 'rm x'", complex: "sh"},
		{line: "/bin/bash -c 'rm x'", complex: "bash"},
		{line: "env go test", complex: "env"},
		{line: "sudo go test", complex: "sudo"},
		{line: "xargs rm < list", complex: "xargs"},
		{line: "go test 'unterminated", complex: "parsed"},
	}
	for _, tt := range tests {
		c := ParseCommand(tt.line)
		if tt.complex != "" {
			if !strings.Contains(c.Complex, tt.complex) || c.Calls != nil {
				t.Errorf("%q: complex %q, calls %q; want a reason with %q and no calls", tt.line, c.Complex, callStrings(c.Calls), tt.complex)
			}
			continue
		}
		if c.Complex != "" {
			t.Errorf("%q: complex %q, want a simple line", tt.line, c.Complex)
		}
		if diff := cmp.Diff(tt.calls, callStrings(c.Calls)); diff != "" {
			t.Errorf("%q: calls (-want +got):\n%s", tt.line, diff)
		}
		if c.Redirection != tt.redir {
			t.Errorf("%q: redirection %v, want %v", tt.line, c.Redirection, tt.redir)
		}
	}
}

// Deny rules see what would run: through quotes, paths and wrappers, and
// inside substitutions, loops and command strings.
func TestRuns(t *testing.T) {
	t.Parallel()
	for _, line := range []string{
		"rm -rf x", `\rm -rf x`, "'rm' -rf x", `r''m -rf x`, `"r"m -rf x`, `$'\x72m' -rf x`, "/bin/rm -rf x",
		"sudo rm -rf x", "sudo -u root -- rm -rf x", "timeout 10 rm -rf x", "timeout -s KILL 10s rm -rf x",
		"nice -n 5 rm -rf x", "nice -5 rm -rf x", "env FOO=1 rm -rf x", "env -i -u HOME rm -rf x", "command rm -rf x",
		"exec rm -rf x", "nohup rm -rf x", "stdbuf -o0 rm -rf x", "find . | xargs -n 1 rm -rf x", "xargs -I{} rm -rf x",
		"FOO=1 rm -rf x", "sh -c 'rm -rf x'", "bash -ec 'cd /; rm -rf x'", "eval 'rm -rf x'", "eval rm -rf x",
		"env -S 'rm -rf x'", "find . -name y -exec rm -rf x ';'", "echo $(rm -rf x)", "echo `rm -rf x`",
		"if true; then rm -rf x; fi", "for f in a; do rm -rf x; done", "f() { rm -rf x; }", "sudo timeout 5 nice rm -rf x",
		"sh -c \"sh -c 'rm -rf x'\"", "go test ; rm -rf x 'unterminated",
	} {
		c := ParseCommand(line)
		if !slices.ContainsFunc(c.Runs, func(call Call) bool { return prefixMatches(call, "rm -rf") }) {
			t.Errorf("%q: runs %q, none of them rm -rf", line, callStrings(c.Runs))
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
		{"git --no-pager status", []string{"git status"}},
		{"git --no-pager log --oneline -5", []string{"git log"}},
		{"git stash list", []string{"git stash list"}},
		{"python3 -m pytest -x tests", []string{"python3 -m pytest"}},
		{"python3 -u -m pytest", []string{"python3 -m pytest"}},
		{"ls -la", []string{"ls"}},
		{"cat main.go", []string{"cat"}},
		{"make test", []string{"make test"}},
		{"npm run build", []string{"npm run build"}},
		{"go mod tidy", []string{"go mod tidy"}},
		{"go vet ./... && go test ./... | tail -5", []string{"go vet", "go test", "tail"}},
		{"go test ./... && go test -race ./...", []string{"go test"}},
		{"npm test 2>&1", []string{"npm test"}},
		// Never a bare shell, interpreter, VCS or build driver.
		{"git -c alias.x='!touch y' x", nil},
		{"git -C /tmp status", nil},
		{"python3 script.py", nil},
		{"python3 -c 'print(1)'", nil},
		{"make", nil},
		{"bash run.sh", nil},
		{"node index.js", nil},
		{"npx prettier .", []string{"npx prettier"}},
		{"npx", nil},
		{"go run .", nil},
		{"npm exec foo", nil},
		{"go test ./... && make", nil},
		// Nothing a prefix cannot vouch for.
		{"go test > out.txt", nil},
		{"echo $(id)", nil},
		{"FOO=1 go test", nil},
		{"sudo make install", nil},
		{"$CMD test", nil},
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
