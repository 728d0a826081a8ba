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

//go:embed replace.md
var replaceDoc string

type replaceArgs struct {
	FilePath             string `json:"file_path" jsonschema:"the file to change, relative to the workspace root"`
	OldString            string `json:"old_string" jsonschema:"the exact text to replace"`
	NewString            string `json:"new_string" jsonschema:"the text to put in its place"`
	ExpectedReplacements int    `json:"expected_replacements,omitempty" jsonschema:"how many matches to replace (default 1)"`
}

type replaceTool struct {
	*agent.Func[replaceArgs]
	st *state
}

func replace(st *state) agent.Tool {
	return replaceTool{agent.NewFunc("replace", replaceDoc, func(ctx context.Context, call *agent.Call, a replaceArgs) (agent.Result, error) {
		hops, err := st.resolveLinks("replace", a.FilePath, writing)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		path, name, target := st.shown(hops)
		old, err := st.env.FS.ReadFile(target) // the file that changes: the editor's buffer of it
		if errors.Is(err, fs.ErrNotExist) {
			return agent.Errorf("%s does not exist; use write_file to create it", name), nil
		}
		if err != nil {
			return agent.Errorf("cannot read %s: %v", name, err), nil
		}
		if a.OldString == "" {
			return agent.Errorf("old_string is empty; give the exact text to replace"), nil
		}
		if a.OldString == a.NewString {
			return agent.Errorf("old_string and new_string are the same; nothing to change"), nil
		}
		if ph := placeholders(path, a.NewString, a.OldString); len(ph) > 0 {
			return agent.Errorf("new_string has %q where code should be: it looks like a stand-in for code left out, and the change would delete that code. Give the complete new text.", ph[0]), nil
		}
		want := a.ExpectedReplacements
		if want <= 0 {
			want = 1
		}
		oldString, newString := a.OldString, a.NewString
		n := strings.Count(old, oldString)
		if n == 0 && strings.Contains(old, "\r\n") && !strings.Contains(oldString, "\r") {
			// The file has Windows line ends; the model wrote Unix ones.
			oldString = strings.ReplaceAll(oldString, "\n", "\r\n")
			newString = strings.ReplaceAll(newString, "\n", "\r\n")
			n = strings.Count(old, oldString)
		}
		switch {
		case n == 0:
			msg := fmt.Sprintf("old_string was not found in %s. ", name)
			if near := nearest(old, a.OldString); near != "" {
				msg += near // ends with a newline
			}
			return agent.Errorf("%sRead the file again and copy the text exactly, including white space.", msg), nil
		case n < want: // more context would not help: the text is not there
			return agent.Errorf("old_string matches only %d of the %d expected places in %s (lines %s). Read the file again, or set expected_replacements to %d.",
				n, want, name, matchLines(old, oldString), n), nil
		case n > want:
			return agent.Errorf("old_string matches %d times in %s (lines %s) but expected_replacements is %d. Add surrounding context to match one place, or set expected_replacements to %d.",
				n, name, matchLines(old, oldString), want, n), nil
		}
		updated := strings.ReplaceAll(old, oldString, newString)
		return propose(ctx, st, call, agent.Change{Path: path, Name: name, Target: target, Old: old, New: updated, Tool: "replace"})
	}).WithKind(agent.KindEdit), st}
}

func (t replaceTool) Locks(args json.RawMessage) []string {
	var a replaceArgs
	json.Unmarshal(args, &a)
	return t.st.pathLock(a.FilePath)
}

func (replaceTool) Describe(args json.RawMessage) string {
	var a replaceArgs
	json.Unmarshal(args, &a)
	return describe("Editing", a.FilePath)
}

// matchLines lists the 1-based lines where sub starts in s.
func matchLines(s, sub string) string {
	var lines []string
	for off := 0; ; {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			break
		}
		lines = append(lines, fmt.Sprint(strings.Count(s[:off+i], "\n")+1))
		off += i + len(sub)
	}
	return strings.Join(lines, ", ")
}
