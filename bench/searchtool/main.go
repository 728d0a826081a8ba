// Command searchtool runs one of agentls's search tools (glob, grep_search,
// list_directory) on a folder, as a run would, and prints its result: the
// agentls side of bench/search.sh's comparison with ripgrep.
//
//	searchtool -dir DIR TOOL 'JSON ARGS'
//	searchtool -dir "$(go env GOROOT)/src" grep_search '{"pattern": "func main"}'
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
	"github.com/agentls/agentls/workspace"
)

func main() {
	dir := flag.String("dir", ".", "the workspace folder")
	quiet := flag.Bool("q", false, "print only the result's first line")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: searchtool -dir DIR TOOL 'JSON ARGS'")
		os.Exit(2)
	}
	if err := run(*dir, flag.Arg(0), flag.Arg(1), *quiet); err != nil {
		fmt.Fprintln(os.Stderr, "searchtool:", err)
		os.Exit(1)
	}
}

func run(dir, name, args string, quiet bool) error {
	ws, err := workspace.New(dir)
	if err != nil {
		return err
	}
	for _, t := range tools.Builtin(tools.Env{FS: ws.Folder(ws.Roots()[0])}) {
		if t.Declaration().Name != name {
			continue
		}
		res, err := t.Run(context.Background(), &agent.Call{Name: name, Args: json.RawMessage(args)})
		if err != nil {
			return err
		}
		out := res.Output
		if quiet {
			out, _, _ = cutLine(out)
		}
		fmt.Print(out)
		if res.IsError {
			os.Exit(1)
		}
		return nil
	}
	return fmt.Errorf("no tool %q", name)
}

func cutLine(s string) (string, string, bool) {
	for i := range len(s) {
		if s[i] == '\n' {
			return s[:i+1], s[i+1:], true
		}
	}
	return s, "", false
}
