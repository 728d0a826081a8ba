package tools_test

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent/tools"
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

func TestReadFileKinds(t *testing.T) {
	t.Parallel()
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + strings.Repeat("\x00", 20)
	longLine := strings.Repeat("é", 1500) // 3000 bytes
	runCases(t, []toolCase{{
		name:  "binary file",
		files: map[string]string{"/ws/logo.png": png},
		call:  call("read_file", map[string]any{"file_path": "logo.png"}),
		want:  toolErr("logo.png is a binary file (image/png); read_file reads text files only"),
		steps: []step{called("read_file", "Reading logo.png"), failed("read_file", "")},
	}, {
		name:  "binary file of no known type",
		files: map[string]string{"/ws/a.out": "\x7fELF\x02\x01\x01\x00\x00\x00"},
		call:  call("read_file", map[string]any{"file_path": "a.out"}),
		want:  toolErr("a.out is a binary file (application/octet-stream); read_file reads text files only"),
		steps: []step{called("read_file", "Reading a.out"), failed("read_file", "")},
	}, {
		name:  "not UTF-8",
		files: map[string]string{"/ws/latin1.txt": "caf\xe9\n"},
		call:  call("read_file", map[string]any{"file_path": "latin1.txt"}),
		want:  toolErr("latin1.txt is a binary file (application/octet-stream); read_file reads text files only"),
		steps: []step{called("read_file", "Reading latin1.txt"), failed("read_file", "")},
	}, {
		name:  "UTF-8 cut at the sniffing limit is text",
		files: map[string]string{"/ws/u.txt": strings.Repeat("a\n", 3999) + "aé\n"},
		call:  call("read_file", map[string]any{"file_path": "u.txt", "offset": 3999}),
		want:  output("[Showing lines 4000-4000 of 4000.]\naé\n"),
		steps: []step{called("read_file", "Reading u.txt"), succeeded("read_file", "Read u.txt")},
	}, {
		name:  "long lines are cut",
		files: map[string]string{"/ws/min.js": "a\n" + longLine + "\nb\n"},
		call:  call("read_file", map[string]any{"file_path": "min.js"}),
		want: output("[Showing lines 1-3 of 3. 1 long lines were cut.]\na\n" + strings.Repeat("é", 1000) +
			" [… line cut at 2000 of 3000 characters]\nb\n"),
		steps: []step{called("read_file", "Reading min.js"), succeeded("read_file", "Read min.js")},
	}, {
		name:  "many bytes are read in parts",
		files: map[string]string{"/ws/big.txt": strings.Repeat(strings.Repeat("x", 999)+"\n", 300)},
		call:  call("read_file", map[string]any{"file_path": "big.txt"}),
		want:  output("[Showing lines 1-131 of 300. To read more, call read_file with offset 131.]\n" + strings.Repeat(strings.Repeat("x", 999)+"\n", 131)),
		steps: []step{called("read_file", "Reading big.txt"), succeeded("read_file", "Read big.txt")},
	}, {
		name:  "secret file",
		files: map[string]string{"/ws/.env": "API_KEY=123\n"},
		call:  call("read_file", map[string]any{"file_path": ".env"}),
		want: toolErr(".env looks like a file of secrets (keys, tokens, credentials), which tools may not use; " +
			"a policy rule with a pathPattern can allow it. Do not try to reach it another way"),
		steps: []step{called("read_file", "Reading .env"), failed("read_file", "")},
	}, {
		name:  "secret file a policy allows",
		files: map[string]string{"/ws/.env.test": "API_KEY=test\n"},
		env:   func(e *tools.Env) { e.Policy = allowPaths{".env.test": true} },
		call:  call("read_file", map[string]any{"file_path": ".env.test"}),
		want:  output("API_KEY=test\n"),
		steps: []step{called("read_file", "Reading .env.test"), succeeded("read_file", "Read .env.test")},
	}, {
		name:  "example of a secret file",
		files: map[string]string{"/ws/.env.example": "API_KEY=\n"},
		call:  call("read_file", map[string]any{"file_path": ".env.example"}),
		want:  output("API_KEY=\n"),
		steps: []step{called("read_file", "Reading .env.example"), succeeded("read_file", "Read .env.example")},
	}})
}

// allowPaths is a tools.PathPolicy that allows the paths it holds.
type allowPaths map[string]bool

func (a allowPaths) AllowsPath(tool, path string) bool { return a[path] }
