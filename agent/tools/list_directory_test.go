package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"
)

func TestListDirectory(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/ws/b.go":             "package b\n",
		"/ws/A.md":             "# A\n",
		"/ws/cmd/main.go":      "package main\n",
		"/ws/.git/HEAD":        "ref: refs/heads/main\n",
		"/ws/.github/ci.yml":   "on: push\n",
		"/ws/empty/":           "",
		"/ws/bare/.git/config": "[core]\n",
	}
	runCases(t, []toolCase{{
		name:  "root: folders first, marked, then files, .git hidden",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "."}),
		want:  output(".:\n.github/\nbare/\ncmd/\nempty/\nA.md\nb.go\n(1 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing ."), succeeded("list_directory", "Listed .")},
	}, {
		name:  "absolute root",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "/ws"}),
		want:  output(".:\n.github/\nbare/\ncmd/\nempty/\nA.md\nb.go\n(1 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing /ws"), succeeded("list_directory", "Listed .")},
	}, {
		name:  "subfolder",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "cmd"}),
		want:  output("cmd:\nmain.go\n"),
		steps: []step{called("list_directory", "Listing cmd"), succeeded("list_directory", "Listed cmd")},
	}, {
		name:  "empty folder",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "empty"}),
		want:  output("empty:\n(empty)\n"),
		steps: []step{called("list_directory", "Listing empty"), succeeded("list_directory", "Listed empty")},
	}, {
		name:  "folder holding only .git",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "bare/"}),
		want:  output("bare:\n(empty)\n(1 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing bare/"), succeeded("list_directory", "Listed bare")},
	}, {
		name:  "missing folder",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "nope"}),
		want:  toolErr("cannot list nope: open nope: file does not exist"),
		steps: []step{called("list_directory", "Listing nope"), failed("list_directory", "")},
	}, {
		name:  "outside the workspace",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "../.."}),
		want:  toolErr("/ is outside the workspace"),
		steps: []step{called("list_directory", "Listing ../.."), failed("list_directory", "")},
	}})
}

func TestListDirectoryIgnores(t *testing.T) {
	t.Parallel()
	files := map[string]string{
		"/ws/.gitignore":           "# build output\n*.log\nbuild/\n/only-root.txt\n!keep.log\n",
		"/ws/.agentlsignore":       "secret-notes/\n",
		"/ws/a.go":                 "package a\n",
		"/ws/debug.log":            "x\n",
		"/ws/keep.log":             "x\n",
		"/ws/only-root.txt":        "x\n",
		"/ws/build/out.bin":        "x\n",
		"/ws/secret-notes/n.md":    "x\n",
		"/ws/sub/only-root.txt":    "x\n",
		"/ws/sub/trace.log":        "x\n",
		"/ws/sub/.gitignore":       "gen/\n",
		"/ws/sub/gen/x.go":         "x\n",
		"/ws/sub/deep/gen/y.go":    "x\n",
		"/ws/sub/deep/z.go":        "x\n",
		"/ws/other/gen/kept.go":    "x\n",
		"/ws/.git/HEAD":            "x\n",
		"/ws/sub/.gitignore.orig/": "",
	}
	runCases(t, []toolCase{{
		name:  "root",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "."}),
		want:  output(".:\nother/\nsub/\n.agentlsignore\n.gitignore\na.go\nkeep.log\n(5 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing ."), succeeded("list_directory", "Listed .")},
	}, {
		name:  "the root's patterns and the folder's own apply below",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "sub"}),
		want:  output("sub:\n.gitignore.orig/\ndeep/\n.gitignore\nonly-root.txt\n(2 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing sub"), succeeded("list_directory", "Listed sub")},
	}, {
		name:  "deeper",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "sub/deep"}),
		want:  output("sub/deep:\nz.go\n(1 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing sub/deep"), succeeded("list_directory", "Listed sub/deep")},
	}, {
		name:  "a folder's patterns stay in it",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "other"}),
		want:  output("other:\ngen/\n"),
		steps: []step{called("list_directory", "Listing other"), succeeded("list_directory", "Listed other")},
	}})
}

func TestListDirectoryCap(t *testing.T) {
	t.Parallel()
	files := map[string]string{}
	var want []string
	for i := range 150 {
		files[fmt.Sprintf("/ws/big/d%03d/x", i)] = ""
		want = append(want, fmt.Sprintf("d%03d/", i))
	}
	for i := range 150 {
		files[fmt.Sprintf("/ws/big/f%03d.txt", 149-i)] = ""
	}
	for i := range 50 {
		want = append(want, fmt.Sprintf("f%03d.txt", i))
	}
	tr := play(t, script{files: files, calls: []*genai.FunctionCall{call("list_directory", map[string]any{"dir_path": "big"})}})
	out := tr.replies(t)[0].Response["output"].(string)
	wantOut := "big: 300 entries; showing the first 200, folders first:\n" + strings.Join(want, "\n") +
		"\n[100 entries not shown; use glob to find files by name.]\n"
	if diff := cmp.Diff(wantOut, out); diff != "" {
		t.Errorf("output (-want +got):\n%s", diff)
	}
}
