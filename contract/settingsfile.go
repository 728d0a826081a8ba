package contract

import (
	"github.com/agentls/agentls/agent/policy"

	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// SettingsFileName is the name of a settings file, in the user's agentls
// folder and in a workspace's .agentls folder; Gemini CLI's name.
const SettingsFileName = "settings.json"

// maxSettingsFile bounds the size of a settings file.
const maxSettingsFile = 1 << 20

// UserSettingsFile is the user's settings file in the user's agentls
// folder dir; "" when dir is "".
func UserSettingsFile(dir string) string {
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, SettingsFileName)
}

// WorkspaceSettingsFile is the settings file of the workspace folder root,
// <root>/.agentls/settings.json: one of the files the user's trust in the
// folder covers (policy.TrustedFiles).
func WorkspaceSettingsFile(root string) string { return policy.WorkspaceSettingsFile(root) }

// ReadSettingsFile reads a settings file for [Settings.Merge] or
// [Settings.MergeWorkspace]: a JSON object, where // and /* */ comments
// may stand between values (as in Gemini CLI's and VS Code's settings.json).
// A file that does not exist reads as no settings (nil); one that is not a
// regular file, or is larger than 1 MiB, is an error.
func ReadSettingsFile(path string) (json.RawMessage, error) {
	if path == "" {
		return nil, nil
	}
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSettingsFile+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxSettingsFile {
		return nil, fmt.Errorf("%s is larger than 1 MiB", path)
	}
	raw := stripComments(b)
	if !json.Valid(raw) {
		var v any
		err := json.Unmarshal(raw, &v)
		return nil, fmt.Errorf("%s: not JSON: %v", path, err)
	}
	return raw, nil
}

// stripComments blanks out the // and /* */ comments of JSON text, outside
// its strings, keeping the line structure (and so the offsets errors name).
func stripComments(b []byte) []byte {
	out := make([]byte, len(b))
	copy(out, b)
	inString, escaped := false, false
	for i := 0; i < len(out); i++ {
		c := out[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			out[i], out[i+1] = ' ', ' '
			for i += 2; i < len(out) && !(out[i] == '*' && i+1 < len(out) && out[i+1] == '/'); i++ {
				if out[i] != '\n' {
					out[i] = ' '
				}
			}
			if i < len(out) {
				out[i], out[i+1] = ' ', ' '
				i++
			}
		}
	}
	return out
}
