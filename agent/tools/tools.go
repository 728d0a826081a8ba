// Package tools holds agentls's built-in tools, one file and one embedded
// description each. Tool names and parameters follow Gemini CLI's, which
// Gemini models are trained on.
package tools

import (
	"path/filepath"
	"sync"

	"github.com/agentls/agentls/agent"
)

// Env is what the tools of one run work with.
type Env struct {
	FS       agent.FS
	Proposer agent.Proposer // nil: the run is read-only and no edit tool is offered
}

// Builtin returns the built-in tools for one run. Tools keep per-run state
// (which files the run has read), so each run needs its own set.
func Builtin(env Env) []agent.Tool {
	st := &state{env: env, read: make(map[string]bool)}
	ts := []agent.Tool{readFile(st), listDirectory(st)}
	if env.Proposer != nil {
		ts = append(ts, replace(st), writeFile(st))
	}
	return ts
}

// state is shared by the tools of one run.
type state struct {
	env Env

	mu   sync.Mutex
	read map[string]bool // resolved paths this run has read
}

func (s *state) markRead(path string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.read[path] = true
}

func (s *state) hasRead(path string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.read[path]
}

// pathLock is the scheduling lock of a call that changes the file at p. It
// names the resolved path, so that two spellings of one file ("a.go",
// "/ws/a.go") share a lock; a path that does not resolve keeps its own
// spelling (the call fails anyway).
func (s *state) pathLock(p string) []string {
	if p == "" {
		return []string{"*"}
	}
	if abs, err := s.env.FS.Resolve(p); err == nil {
		return []string{"file:" + abs}
	}
	return []string{"file:" + filepath.Clean(p)}
}

// describe is a call's progress line, "Reading a.go"; "" (no line) when the
// arguments name no path, as when they do not decode.
func describe(verb, path string) string {
	if path == "" {
		return ""
	}
	return verb + " " + path
}
