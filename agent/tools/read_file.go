package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent"
)

//go:embed read_file.md
var readFileDoc string

// Caps of one read_file result: lines, bytes, and the length of one line.
const (
	maxReadLines   = 2000
	maxReadBytes   = 128 << 10
	maxLineLength  = 2000
	binarySniffLen = 8000
)

type readFileArgs struct {
	FilePath string `json:"file_path" jsonschema:"the file to read, relative to the workspace root"`
	Offset   int    `json:"offset,omitempty" jsonschema:"0-based line to start at"`
	Limit    int    `json:"limit,omitempty" jsonschema:"how many lines to read"`
}

type readFileTool struct{ *agent.Func[readFileArgs] }

func readFile(st *state) agent.Tool {
	return readFileTool{agent.NewFunc("read_file", readFileDoc, func(ctx context.Context, call *agent.Call, a readFileArgs) (agent.Result, error) {
		hops, err := st.resolveLinks("read_file", a.FilePath, reading)
		if err != nil {
			if text, ok, serr := st.readSkillFile(a.FilePath); ok {
				return readSkillResult(a, text, serr)
			}
			return agent.Errorf("%v", err), nil
		}
		// A symlink is read where it leads: the editor's buffer of that
		// file, which its own path names.
		path := hops[0]
		text, err := st.env.FS.ReadFile(hops[len(hops)-1])
		if errors.Is(err, fs.ErrNotExist) {
			return agent.Errorf("%s does not exist", a.FilePath), nil
		}
		if err != nil {
			return agent.Errorf("cannot read %s: %v", a.FilePath, err), nil
		}
		name := st.env.FS.Rel(path)
		if kind, ok := binaryKind(text); ok {
			return agent.Errorf("%s is a binary file (%s); read_file reads text files only", name, kind), nil
		}
		st.markRead(hops[len(hops)-1]) // what was read: the file a symlink leads to
		out, err := lineWindow(text, a.Offset, a.Limit)
		if err != nil {
			return agent.Errorf("%s: %v", name, err), nil
		}
		return agent.Result{Output: out, Display: "Read " + name}, nil
	}).WithKind(agent.KindRead)}
}

// readSkillResult is read_file's result for a file of an active skill
// outside the workspace.
func readSkillResult(a readFileArgs, text string, err error) (agent.Result, error) {
	if err != nil {
		return agent.Errorf("cannot read %s: %v", a.FilePath, err), nil
	}
	if kind, ok := binaryKind(text); ok {
		return agent.Errorf("%s is a binary file (%s); read_file reads text files only", a.FilePath, kind), nil
	}
	out, err := lineWindow(text, a.Offset, a.Limit)
	if err != nil {
		return agent.Errorf("%s: %v", a.FilePath, err), nil
	}
	return agent.Result{Output: out, Display: "Read " + a.FilePath}, nil
}

func (readFileTool) Describe(args json.RawMessage) string {
	var a readFileArgs
	json.Unmarshal(args, &a)
	return describe("Reading", a.FilePath)
}

// lineWindow returns lines [offset, offset+limit) of text, capped at
// maxReadLines lines and about maxReadBytes bytes, with a notice telling how
// to read the rest. Lines longer than maxLineLength are cut.
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
	var body strings.Builder
	end, cut := offset, 0
	for ; end < min(offset+limit, total); end++ {
		line := lines[end]
		if body.Len()+len(line) > maxReadBytes && end > offset {
			break
		}
		if content := strings.TrimRight(line, "\r\n"); len(content) > maxLineLength {
			line = truncateUTF8(content, maxLineLength) + fmt.Sprintf(" [… line cut at %d of %d characters]", maxLineLength, len(content)) + line[len(content):]
			cut++
		}
		body.WriteString(line)
	}
	if offset == 0 && end == total && cut == 0 {
		return body.String(), nil
	}
	notice := fmt.Sprintf("[Showing lines %d-%d of %d.", offset+1, end, total)
	if end < total { // past the end there is nothing more to read
		notice += fmt.Sprintf(" To read more, call read_file with offset %d.", end)
	}
	if cut > 0 {
		notice += fmt.Sprintf(" %d long lines were cut.", cut)
	}
	return notice + "]\n" + body.String(), nil
}

// truncateUTF8 cuts s to at most n bytes without splitting a character.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// binaryKind reports whether text is the content of a binary file, and its
// media type: a NUL byte, or bytes that are not UTF-8, in its beginning.
func binaryKind(text string) (string, bool) {
	head := text[:min(len(text), binarySniffLen)]
	if !strings.ContainsRune(head, 0) && validUTF8Prefix(head, len(head) < len(text)) {
		return "", false
	}
	kind, _, _ := strings.Cut(http.DetectContentType([]byte(head)), ";")
	if strings.HasPrefix(kind, "text/") {
		kind = "application/octet-stream" // not UTF-8, whatever its beginning looks like
	}
	return kind, true
}

// validUTF8Prefix reports whether head is UTF-8; when head was cut from a
// longer text, its last character may be incomplete.
func validUTF8Prefix(head string, cut bool) bool {
	for i := 0; i < utf8.UTFMax && i <= len(head); i++ {
		if utf8.ValidString(head[:len(head)-i]) {
			return true
		}
		if !cut {
			return false
		}
	}
	return false
}
