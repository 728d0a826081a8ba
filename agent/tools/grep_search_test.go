package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/tools"
)

func TestGrepSearch(t *testing.T) {
	t.Parallel()
	const (
		ignored = "(3 ignored paths (.git, .gitignore, .agentlsignore) were not searched)\n"
		skipped = "(skipped 1 binary files, 1 secret-looking files)\n" + ignored
	)
	tests := []struct {
		name string
		args map[string]any
		env  func(*tools.Env)
		want map[string]any
	}{
		{name: "path:line: text, in path order", args: map[string]any{"pattern": "hello"},
			want: output("6 matches for /hello/ in 5 files in the workspace root:\nREADME.md:3: Say hello.\ngreet.go:3: // greet says hello.\n" +
				"greet.go:5: \tprintln(\"hello\", name)\nweb/src/app.ts:1: export const hello = 1;\nweb/src/util.js:1: // hello\n" +
				"web/src/view.tsx:1: export const View = () => <p>hello</p>;\n" + skipped)},
		{name: "include by name", args: map[string]any{"pattern": "hello", "include": "*.{ts,tsx}"},
			want: output("2 matches for /hello/ in 2 files in the workspace root (files matching *.{ts,tsx}):\nweb/src/app.ts:1: export const hello = 1;\n" +
				"web/src/view.tsx:1: export const View = () => <p>hello</p>;\n" + ignored)},
		{name: "include by path", args: map[string]any{"pattern": "hello", "include": "web/**/*.js"},
			want: output("1 match for /hello/ in 1 file in the workspace root (files matching web/**/*.js):\nweb/src/util.js:1: // hello\n" + ignored)},
		{name: "dir_path", args: map[string]any{"pattern": "^export", "dir_path": "web"},
			want: output("2 matches for /^export/ in 2 files in web:\nweb/src/app.ts:1: export const hello = 1;\nweb/src/view.tsx:1: export const View = () => <p>hello</p>;\n")},
		{name: "regexp", args: map[string]any{"pattern": `func \w+\(`},
			want: output("2 matches for /func \\w+\\(/ in 2 files in the workspace root:\ngreet.go:4: func greet(name string) {\nmain.go:3: func main() {\n" + skipped)},
		{name: "line end anchor", args: map[string]any{"pattern": `\{$`, "include": "*.go"},
			want: output("2 matches for /\\{$/ in 2 files in the workspace root (files matching *.go):\ngreet.go:4: func greet(name string) {\nmain.go:3: func main() {\n" + ignored)},
		{name: "secret files a policy allows", args: map[string]any{"pattern": "HELLO"}, env: func(e *tools.Env) { e.Policy = allowPaths{".env": true} },
			want: output("1 match for /HELLO/ in 1 file in the workspace root:\n.env:1: HELLO_TOKEN=1\n(skipped 1 binary files)\n(3 ignored paths (.git, .gitignore, .agentlsignore) were not searched)\n")},
		{name: "no match", args: map[string]any{"pattern": "goodbye"},
			want: output("No matches for /goodbye/ in the workspace root.\n" + skipped)},
		{name: "bad regexp", args: map[string]any{"pattern": "(?<=a)b"},
			want: toolErr("invalid regular expression \"(?<=a)b\": error parsing regexp: invalid named capture: `(?<=a)b` (RE2 syntax: no lookarounds or backreferences)")},
		{name: "bad include", args: map[string]any{"pattern": "a", "include": "[a"},
			want: toolErr("include \"[a\" is not a valid glob")},
		{name: "dir_path outside", args: map[string]any{"pattern": "a", "dir_path": "../etc"},
			want: toolErr("/etc is outside the workspace")},
		{name: "dir_path is a file", args: map[string]any{"pattern": "a", "dir_path": "main.go"},
			want: toolErr("cannot search main.go: readdir main.go: not implemented")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{files: searchFiles, env: tt.env, calls: []*genai.FunctionCall{call("grep_search", tt.args)}})
			if diff := cmp.Diff([]reply{{Name: "grep_search", Response: tt.want}}, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGrepSearchCaps(t *testing.T) {
	t.Parallel()
	files := map[string]string{"/ws/a-many.txt": strings.Repeat("hit\n", 30), "/ws/long.txt": "hit " + strings.Repeat("x", 500) + "\n"}
	for i := range 20 {
		files[fmt.Sprintf("/ws/f/%02d.txt", i)] = strings.Repeat("hit\n", 12)
	}
	tr := play(t, script{files: files, calls: []*genai.FunctionCall{call("grep_search", map[string]any{"pattern": "hit"})}})
	out := tr.replies(t)[0].Response["output"].(string)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	// In path order: a-many.txt, its first 20 matches, then f/00.txt to
	// f/14.txt, 12 each; f/15.txt to f/19.txt and long.txt are counted only.
	want := []string{
		"271 matches for /hit/ in 22 files in the workspace root; showing the first 200 by path, at most 20 a file:",
		"a-many.txt:1: hit",
	}
	if diff := cmp.Diff(want, lines[:2]); diff != "" {
		t.Errorf("head (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a-many.txt:20: hit", "a-many.txt: [10 more matches]", "f/00.txt:1: hit"}, lines[20:23]); diff != "" {
		t.Errorf("a capped file (-want +got):\n%s", diff)
	}
	tail := lines[len(lines)-2:]
	wantTail := []string{
		"f/14.txt:12: hit",
		"[71 matches not shown; narrow the pattern, dir_path or include to see them.]",
	}
	if diff := cmp.Diff(wantTail, tail); diff != "" {
		t.Errorf("tail (-want +got):\n%s", diff)
	}
	if len(lines) != 1+200+2 {
		t.Errorf("%d lines", len(lines))
	}
	// 240 matches of f/ come first: long.txt is cut but not shown.
	tr = play(t, script{files: files, calls: []*genai.FunctionCall{call("grep_search", map[string]any{"pattern": "hit", "include": "long.txt"})}})
	if out := tr.replies(t)[0].Response["output"].(string); !strings.Contains(out, "long.txt:1: hit "+strings.Repeat("x", 296)+" […]\n") {
		t.Errorf("long line not cut:\n%s", out)
	}
}
