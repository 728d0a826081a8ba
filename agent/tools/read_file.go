package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/agentls/agentls/agent"
)

//go:embed read_file.md
var readFileDoc string

// maxReadLines caps one read_file result.
const maxReadLines = 2000

type readFileArgs struct {
	FilePath string `json:"file_path" jsonschema:"the file to read, relative to the workspace root"`
	Offset   int    `json:"offset,omitempty" jsonschema:"0-based line to start at"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many lines to read"`
}

type readFileTool struct{ *agent.Func[readFileArgs] }

func readFile(st *state) agent.Tool {
	return readFileTool{agent.NewFunc("read_file", readFileDoc, func(ctx context.Context, call *agent.Call, a readFileArgs) (agent.Result, error) {
		path, err := st.env.FS.Resolve(a.FilePath)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		text, err := st.env.FS.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return agent.Errorf("%s does not exist", a.FilePath), nil
		}
		if err != nil {
			return agent.Errorf("cannot read %s: %v", a.FilePath, err), nil
		}
		st.markRead(path)
		name := st.env.FS.Rel(path)
		out, err := lineWindow(text, a.Offset, a.Limit)
		if err != nil {
			return agent.Errorf("%s: %v", name, err), nil
		}
		return agent.Result{Output: out, Display: "Read " + name}, nil
	})}
}

func (readFileTool) Describe(args json.RawMessage) string {
	var a readFileArgs
	json.Unmarshal(args, &a)
	return describe("Reading", a.FilePath)
}

// lineWindow returns lines [offset, offset+limit) of text, capped at
// maxReadLines, with a notice telling how to read the rest.
func lineWindow(text string, offset, limit int) (string, error) {
	if offset < 0 || limit < 0 {
		return "", errors.New("offset and limit must not be negative")
	}
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	total := len(lines)
	if offset > 0 && offset >= total {
		return "", fmt.Errorf("offset %d is past the end of the file (%d lines)", offset, total)
	}
	if limit == 0 || limit > maxReadLines {
		limit = maxReadLines
	}
	end := min(offset+limit, total)
	body := strings.Join(lines[offset:end], "")
	if offset == 0 && end == total {
		return body, nil
	}
	notice := fmt.Sprintf("[Showing lines %d-%d of %d.", offset+1, end, total)
	if end < total { // past the end there is nothing more to read
		notice += fmt.Sprintf(" To read more, call read_file with offset %d.", end)
	}
	return notice + "]\n" + body, nil
}
