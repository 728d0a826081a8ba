package tools_test

import (
	"strings"
	"testing"
)

func TestReadFile(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x\n", 2500)
	runCases(t, []toolCase{{
		name:  "whole file",
		call:  call("read_file", map[string]any{"file_path": "c.txt"}),
		want:  output("one\ntwo\nthree\nfour\nfive\n"),
		steps: []step{called("read_file", "Reading c.txt"), succeeded("read_file", "Read c.txt")},
	}, {
		name:  "absolute path inside the workspace",
		call:  call("read_file", map[string]any{"file_path": "/ws/c.txt"}),
		want:  output("one\ntwo\nthree\nfour\nfive\n"),
		steps: []step{called("read_file", "Reading /ws/c.txt"), succeeded("read_file", "Read c.txt")},
	}, {
		name:  "offset and limit",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "offset": 1, "limit": 2}),
		want:  output("[Showing lines 2-3 of 5. To read more, call read_file with offset 3.]\ntwo\nthree\n"),
		steps: []step{called("read_file", "Reading c.txt"), succeeded("read_file", "Read c.txt")},
	}, {
		name:  "limit alone",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "limit": 2}),
		want:  output("[Showing lines 1-2 of 5. To read more, call read_file with offset 2.]\none\ntwo\n"),
		steps: []step{called("read_file", "Reading c.txt"), succeeded("read_file", "Read c.txt")},
	}, {
		// Nothing is left to read: the notice must not ask for more.
		name:  "window reaching the end",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "offset": 3}),
		want:  output("[Showing lines 4-5 of 5.]\nfour\nfive\n"),
		steps: []step{called("read_file", "Reading c.txt"), succeeded("read_file", "Read c.txt")},
	}, {
		name:  "last line without newline",
		files: map[string]string{"/ws/n.txt": "x\ny"},
		call:  call("read_file", map[string]any{"file_path": "n.txt", "offset": 1}),
		want:  output("[Showing lines 2-2 of 2.]\ny"),
		steps: []step{called("read_file", "Reading n.txt"), succeeded("read_file", "Read n.txt")},
	}, {
		name:  "long file is capped",
		files: map[string]string{"/ws/long.txt": long},
		call:  call("read_file", map[string]any{"file_path": "long.txt"}),
		want:  output("[Showing lines 1-2000 of 2500. To read more, call read_file with offset 2000.]\n" + strings.Repeat("x\n", 2000)),
		steps: []step{called("read_file", "Reading long.txt"), succeeded("read_file", "Read long.txt")},
	}, {
		name:  "limit above the cap",
		files: map[string]string{"/ws/long.txt": long},
		call:  call("read_file", map[string]any{"file_path": "long.txt", "offset": 2400, "limit": 5000}),
		want:  output("[Showing lines 2401-2500 of 2500.]\n" + strings.Repeat("x\n", 100)),
		steps: []step{called("read_file", "Reading long.txt"), succeeded("read_file", "Read long.txt")},
	}, {
		name:  "empty file",
		files: map[string]string{"/ws/empty.txt": ""},
		call:  call("read_file", map[string]any{"file_path": "empty.txt"}),
		want:  output(""),
		steps: []step{called("read_file", "Reading empty.txt"), succeeded("read_file", "Read empty.txt")},
	}, {
		name:  "offset past the end",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "offset": 5}),
		want:  toolErr("c.txt: offset 5 is past the end of the file (5 lines)"),
		steps: []step{called("read_file", "Reading c.txt"), failed("read_file", "")},
	}, {
		name:  "negative offset",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "offset": -1}),
		want:  toolErr("c.txt: offset and limit must not be negative"),
		steps: []step{called("read_file", "Reading c.txt"), failed("read_file", "")},
	}, {
		name:  "negative limit",
		call:  call("read_file", map[string]any{"file_path": "c.txt", "limit": -3}),
		want:  toolErr("c.txt: offset and limit must not be negative"),
		steps: []step{called("read_file", "Reading c.txt"), failed("read_file", "")},
	}, {
		name:  "missing file",
		call:  call("read_file", map[string]any{"file_path": "nope.go"}),
		want:  toolErr("nope.go does not exist"),
		steps: []step{called("read_file", "Reading nope.go"), failed("read_file", "")},
	}, {
		name:  "path outside the workspace",
		call:  call("read_file", map[string]any{"file_path": "../etc/passwd"}),
		want:  toolErr("/etc/passwd is outside the workspace"),
		steps: []step{called("read_file", "Reading ../etc/passwd"), failed("read_file", "")},
	}, {
		name:  "absolute path outside the workspace",
		call:  call("read_file", map[string]any{"file_path": "/etc/passwd"}),
		want:  toolErr("/etc/passwd is outside the workspace"),
		steps: []step{called("read_file", "Reading /etc/passwd"), failed("read_file", "")},
	}})
}
