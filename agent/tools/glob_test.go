package tools_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

var searchFiles = map[string]string{
	"/ws/.gitignore":        "*.log\nvendor/\n",
	"/ws/main.go":           "package main\n\nfunc main() {\n\tgreet(\"world\")\n}\n",
	"/ws/greet.go":          "package main\n\n// greet says hello.\nfunc greet(name string) {\n\tprintln(\"hello\", name)\n}\n",
	"/ws/README.md":         "# Greeter\n\nSay hello.\n",
	"/ws/app.log":           "hello from the log\n",
	"/ws/vendor/lib/lib.go": "package lib // hello\n",
	"/ws/web/src/app.ts":    "export const hello = 1;\n",
	"/ws/web/src/view.tsx":  "export const View = () => <p>hello</p>;\n",
	"/ws/web/src/util.js":   "// hello\n",
	"/ws/.git/config":       "hello\n",
	"/ws/.env":              "HELLO_TOKEN=1\n",
	"/ws/logo.png":          "\x89PNG\r\n\x1a\n\x00hello",
}

// searchFS sets the files' modification times: the later in this list, the
// newer.
func searchFS(m *memFS) {
	order := []string{"README.md", "greet.go", "web/src/util.js", "web/src/app.ts", "main.go", "web/src/view.tsx"}
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, p := range order {
		m.touch("/ws/"+p, base.Add(time.Duration(i)*time.Hour))
	}
}

func TestGlob(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args map[string]any
		want map[string]any
	}{
		{"anywhere, newest first", map[string]any{"pattern": "**/*.go"},
			output("2 files match \"**/*.go\" in the workspace root, newest first:\nmain.go\ngreet.go\n(3 ignored paths (.git, .gitignore, .agentlsignore) were not searched)\n")},
		{"top level only", map[string]any{"pattern": "*.md"},
			output("1 file matches \"*.md\" in the workspace root, newest first:\nREADME.md\n(3 ignored paths (.git, .gitignore, .agentlsignore) were not searched)\n")},
		{"braces under a folder", map[string]any{"pattern": "web/**/*.{ts,tsx}"},
			output("2 files match \"web/**/*.{ts,tsx}\" in the workspace root, newest first:\nweb/src/view.tsx\nweb/src/app.ts\n")},
		{"in dir_path", map[string]any{"pattern": "*", "dir_path": "web/src"},
			output("3 files match \"*\" in web/src, newest first:\nweb/src/view.tsx\nweb/src/app.ts\nweb/src/util.js\n")},
		{"absolute pattern", map[string]any{"pattern": "/ws/web/**/*.js"},
			output("1 file matches \"/ws/web/**/*.js\" in the workspace root, newest first:\nweb/src/util.js\n")},
		{"ignored files are not found", map[string]any{"pattern": "**/*.log"},
			output("No files match \"**/*.log\" in the workspace root.\n(3 ignored paths (.git, .gitignore, .agentlsignore) were not searched)\n")},
		{"no such folder", map[string]any{"pattern": "nope/**"},
			output("No files match \"nope/**\" in the workspace root.")},
		{"invalid pattern", map[string]any{"pattern": "web/[a"},
			toolErr("pattern \"web/[a\" is not a valid glob (check its brackets and braces)")},
		{"pattern leaving dir_path", map[string]any{"pattern": "../**/*.go", "dir_path": "web"},
			toolErr("pattern \"../**/*.go\" leaves dir_path; use dir_path to search another folder")},
		{"absolute pattern elsewhere", map[string]any{"pattern": "/etc/*.conf"},
			toolErr("/etc is outside the workspace")},
		{"dir_path outside", map[string]any{"pattern": "*", "dir_path": ".."},
			toolErr("/ is outside the workspace")},
		{"empty pattern", map[string]any{"pattern": " "}, toolErr("pattern is empty; give a glob such as **/*.go")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{files: searchFiles, fs: searchFS, calls: []*genai.FunctionCall{call("glob", tt.args)}})
			if diff := cmp.Diff([]reply{{Name: "glob", Response: tt.want}}, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
		})
	}
}

func TestGlobCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	for i := range 150 {
		files[fmt.Sprintf("/ws/f%03d.txt", i)] = "x"
	}
	tr := play(t, script{files: files, calls: []*genai.FunctionCall{call("glob", map[string]any{"pattern": "*.txt"})}})
	out := tr.replies(t)[0].Response["output"].(string)
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 102 || lines[0] != `150 files match "*.txt" in the workspace root; showing the 100 newest:` || lines[1] != "f000.txt" ||
		lines[101] != "[50 older files not shown; narrow the pattern or dir_path to see them.]" {
		t.Errorf("output:\n%s", out)
	}
}
