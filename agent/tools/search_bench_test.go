package tools_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/workspace"
)

// goSrc is the workspace folder of the search benchmarks: Go's own source
// tree, which every machine with Go has and ripgrep can search too (see
// bench/search.sh for the side-by-side figures).
func goSrc(b *testing.B) *workspace.Folder {
	dir := filepath.Join(runtime.GOROOT(), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	ws, err := workspace.New(dir)
	if err != nil {
		b.Fatal(err)
	}
	return ws.Folder(ws.Roots()[0])
}

func benchTool(b *testing.B, name, args string) {
	fsys := goSrc(b)
	var tool agent.Tool
	for _, t := range tools.Builtin(tools.Env{FS: fsys}) {
		if t.Declaration().Name == name {
			tool = t
		}
	}
	c := &agent.Call{Name: name, Args: json.RawMessage(args)}
	for b.Loop() {
		res, err := tool.Run(b.Context(), c)
		if err != nil || res.IsError {
			b.Fatal(err, res.Output)
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B) { benchTool(b, "grep_search", `{"pattern": "func main"}`) }
func BenchmarkGrepRegexp(b *testing.B) {
	benchTool(b, "grep_search", `{"pattern": "func \\w+Error\\("}`)
}
func BenchmarkGrepNoMatch(b *testing.B) { benchTool(b, "grep_search", `{"pattern": "zqxjkvbnm"}`) }
func BenchmarkGlobAll(b *testing.B)     { benchTool(b, "glob", `{"pattern": "**/*"}`) }
