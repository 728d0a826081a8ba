package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"io/fs"

	"github.com/agentls/agentls/agent"
)

//go:embed write_file.md
var writeFileDoc string

type writeFileArgs struct {
	FilePath string `json:"file_path" jsonschema:"the file to write, relative to the workspace root"`
	Content  string `json:"content" jsonschema:"the complete new content of the file"`
}

type writeFileTool struct {
	*agent.Func[writeFileArgs]
	st *state
}

func writeFile(st *state) agent.Tool {
	return writeFileTool{agent.NewFunc("write_file", writeFileDoc, func(ctx context.Context, call *agent.Call, a writeFileArgs) (agent.Result, error) {
		hops, err := st.resolveLinks("write_file", a.FilePath, writing)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		path, name, target := st.shown(hops)
		old, err := st.env.FS.ReadFile(target) // the file that changes: the editor's buffer of it
		create := errors.Is(err, fs.ErrNotExist)
		if err != nil && !create {
			return agent.Errorf("cannot read %s: %v", name, err), nil
		}
		if !create && old == a.Content {
			return agent.Errorf("%s already has this content; nothing to change", name), nil
		}
		if !create && !st.hasRead(target) {
			return agent.Errorf("%s exists and you have not read it in this run. Read it first, then give its complete new content, or use replace for a local change.", name), nil
		}
		if ph := placeholders(path, a.Content, old); len(ph) > 0 {
			return agent.Errorf("content has %q where code should be: it looks like a stand-in for code left out, and writing it would delete that code from %s. "+
				"Give the complete content of the file, or use replace to change only part of it.", ph[0], name), nil
		}
		return propose(ctx, st, call, agent.Change{Path: path, Name: name, Target: target, Old: old, New: a.Content, Create: create, Tool: "write_file"})
	}).WithKind(agent.KindEdit), st}
}

func (t writeFileTool) Locks(args json.RawMessage) []string {
	var a writeFileArgs
	json.Unmarshal(args, &a)
	return t.st.pathLock(a.FilePath)
}

func (writeFileTool) Describe(args json.RawMessage) string {
	var a writeFileArgs
	json.Unmarshal(args, &a)
	return describe("Writing", a.FilePath)
}
