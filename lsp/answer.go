package lsp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/workspace"
)

// answerLines is how much of a text answer window/showMessage shows.
const (
	answerLines = 3
	answerChars = 400
)

// answer shows a run's text answer (explain, questions): its first lines
// with window/showMessage, and the whole of it as a Markdown file in the
// cache directory, opened with window/showDocument where the client can.
// The whole answer is also in run_end.
func (r *liveRun) answer(ctx context.Context, result string) {
	r.s.showMessage(ctx, true, "agentls: "+firstLines(result, answerLines, answerChars))
	if !r.spec.caps.showDocument {
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", r.title())
	if t := r.spec.task; t.File != "" {
		if t.Selection != nil {
			fmt.Fprintf(&b, "_%s, lines %d–%d_\n\n", t.File, t.Selection.StartLine, t.Selection.EndLine)
		} else {
			fmt.Fprintf(&b, "_%s_\n\n", t.File)
		}
	}
	b.WriteString(strings.TrimSpace(result))
	b.WriteString("\n")
	r.s.showFile(ctx, filepath.Join("answers", r.spec.h.id+".md"), b.String())
}

// showFile writes text to name under the cache directory and asks the
// client to open it. It reports whether the client showed it.
func (s *Server) showFile(ctx context.Context, name, text string) bool {
	path, err := s.writeCacheFile(name, text)
	if err != nil {
		s.log.Warn("cache file", "err", err)
		return false
	}
	return s.showPath(ctx, path)
}

// writeCacheFile writes text to name under the cache directory and returns
// its path.
func (s *Server) writeCacheFile(name, text string) (string, error) {
	dir, err := s.cacheDir()
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return "", err
	}
	return path, nil
}

// showPath asks the client to open path and reports whether it did. The
// wait for the answer ends when the server exits: the exit handler waits
// for runs on the connection's reader, which alone could read the answer.
func (s *Server) showPath(ctx context.Context, path string) bool {
	ctx, cancel := s.outgoingContext(ctx, s.showDocumentTimeout())
	defer cancel()
	res, err := s.client.ShowDocument(ctx, &protocol.ShowDocumentParams{URI: workspace.URIFromPath(path), TakeFocus: ptr(true)})
	if err != nil {
		// Neovim 0.7 answers MethodNotFound: not shown.
		s.log.Debug("showDocument failed", "path", path, "err", err)
		return false
	}
	return res != nil && res.Success
}

// firstLines returns the first n non-empty lines of s, at most max
// characters, with "…" when something was left out.
func firstLines(s string, n, max int) string {
	var lines []string
	rest := false
	for _, l := range strings.Split(strings.TrimSpace(s), "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l == "" {
			continue
		}
		if len(lines) == n {
			rest = true
			break
		}
		lines = append(lines, l)
	}
	out := strings.Join(lines, "\n")
	if r := []rune(out); len(r) > max {
		out, rest = string(r[:max-1]), true
	}
	if rest {
		out += "…"
	}
	return out
}
