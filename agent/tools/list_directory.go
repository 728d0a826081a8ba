package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

//go:embed list_directory.md
var listDirectoryDoc string

// maxListEntries caps one listing.
const maxListEntries = 200

type listDirectoryArgs struct {
	DirPath string `json:"dir_path" jsonschema:"the folder to list, relative to the workspace root ('.' for the root)"`
}

type listDirectoryTool struct{ *agent.Func[listDirectoryArgs] }

func listDirectory(st *state) agent.Tool {
	return listDirectoryTool{agent.NewFunc("list_directory", listDirectoryDoc, func(ctx context.Context, call *agent.Call, a listDirectoryArgs) (agent.Result, error) {
		path, err := st.resolve("list_directory", a.DirPath, reading)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		entries, err := st.env.FS.ReadDir(path)
		if err != nil {
			return agent.Errorf("cannot list %s: %v", a.DirPath, err), nil
		}
		ig, parts := ignoreAbove(st.env.FS, path)
		ig = ig.with(st.env.FS, path, parts, entries)
		var dirs, files []string
		skipped := 0
		for _, e := range entries {
			if ig.ignored(append(slices.Clip(parts), e.Name()), e.IsDir()) {
				skipped++
				continue
			}
			if e.IsDir() {
				dirs = append(dirs, e.Name()+"/")
			} else {
				files = append(files, e.Name())
			}
		}
		slices.Sort(dirs)
		slices.Sort(files)
		names := append(dirs, files...)
		var b strings.Builder
		name := st.env.FS.Rel(path)
		if len(names) > maxListEntries {
			fmt.Fprintf(&b, "%s: %d entries; showing the first %d, folders first:\n", name, len(names), maxListEntries)
		} else {
			fmt.Fprintf(&b, "%s:\n", name)
		}
		for _, n := range names[:min(len(names), maxListEntries)] {
			b.WriteString(n)
			b.WriteString("\n")
		}
		if len(names) > maxListEntries {
			fmt.Fprintf(&b, "[%d entries not shown; use glob to find files by name.]\n", len(names)-maxListEntries)
		}
		if len(names) == 0 {
			b.WriteString("(empty)\n")
		}
		if skipped > 0 {
			fmt.Fprintf(&b, "(%d ignored entries not shown)\n", skipped)
		}
		return agent.Result{Output: b.String(), Display: "Listed " + st.env.FS.Rel(path)}, nil
	}).WithKind(agent.KindRead)}
}

func (listDirectoryTool) Describe(args json.RawMessage) string {
	var a listDirectoryArgs
	json.Unmarshal(args, &a)
	return describe("Listing", a.DirPath)
}
