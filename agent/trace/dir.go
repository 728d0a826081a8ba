package trace

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/agentls/agentls/agent/statedir"
)

// EnvDir names the environment variable that moves traces to another
// folder; "off" turns tracing off.
const EnvDir = "AGENTLS_TRACE_DIR"

// ErrNoDir reports that there is no state directory to trace in.
var ErrNoDir = statedir.ErrNoDir("traces", EnvDir)

// Dir returns the folder runs are traced in: $AGENTLS_TRACE_DIR, else
// $XDG_STATE_HOME/agentls/runs, else ~/.local/state/agentls/runs
// (%LOCALAPPDATA%\agentls\runs on Windows). It returns "" when
// AGENTLS_TRACE_DIR is "off".
func Dir(getenv func(string) string) (string, error) {
	return statedir.Dir(getenv, EnvDir, "runs", ErrNoDir)
}

// Path is where a run in the workspace folder root is traced:
// dir/<hash of root>/<runID>.jsonl. The hash keeps one folder per
// workspace without putting the workspace's path in a file name.
func Path(dir, root, runID string) string {
	return filepath.Join(workspaceDir(dir, root), runID+".jsonl")
}

func workspaceDir(dir, root string) string {
	sum := sha256.Sum256([]byte(filepath.Clean(root)))
	return filepath.Join(dir, hex.EncodeToString(sum[:6]))
}

// A File is a trace file found by [List].
type File struct {
	Path    string
	ModTime time.Time
}

// List returns the trace files under dir, the newest first: those of the
// workspace folder root, or of every workspace when root is "". A missing
// dir holds none.
func List(dir, root string) ([]File, error) {
	pattern := filepath.Join(dir, "*", "*.jsonl")
	if root != "" {
		pattern = filepath.Join(workspaceDir(dir, root), "*.jsonl")
	}
	paths, err := filepath.Glob(pattern)
	if err != nil {
		return nil, err
	}
	var files []File
	for _, p := range paths {
		fi, err := os.Stat(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, err
		}
		files = append(files, File{Path: p, ModTime: fi.ModTime()})
	}
	slices.SortFunc(files, func(a, b File) int { return b.ModTime.Compare(a.ModTime) })
	return files, nil
}
