package tools_test

import "testing"

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
		name:  "root sorted, folders marked, .git hidden",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "."}),
		want:  output(".:\n.github/\nA.md\nb.go\nbare/\ncmd/\nempty/\n(1 ignored entries not shown)\n"),
		steps: []step{called("list_directory", "Listing ."), succeeded("list_directory", "Listed .")},
	}, {
		name:  "absolute root",
		files: files,
		call:  call("list_directory", map[string]any{"dir_path": "/ws"}),
		want:  output(".:\n.github/\nA.md\nb.go\nbare/\ncmd/\nempty/\n(1 ignored entries not shown)\n"),
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
