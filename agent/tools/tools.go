// Package tools holds agentls's built-in tools, one file and one embedded
// description each. Tool names and parameters follow Gemini CLI's, which
// Gemini models are trained on.
//
// Every path a tool is given goes through the run's agent.FS, which confines
// it to the workspace; on top of that the tools refuse secret-looking files
// (unless a policy rule allows them) and never write under .git or .agentls.
package tools

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/skill"
	"github.com/agentls/agentls/agent/web"
)

// Env is what the tools of one run work with.
type Env struct {
	FS agent.FS
	// Proposer receives the changes of edit tools. nil: the run is read-only
	// and neither edit tools nor run_shell_command are offered.
	Proposer agent.Proposer
	// Mode is the run's approval mode; in plan mode neither edit tools nor
	// run_shell_command are offered.
	Mode policy.Mode
	// Policy decides whether secret-looking files (.env, keys) may be used;
	// nil refuses them all.
	Policy PathPolicy
	// ShellTimeout limits one shell command; 0: DefaultShellTimeout.
	ShellTimeout time.Duration
	// Environ is the environment shell commands start from, before secrets
	// are taken out; nil: the server's own (os.Environ).
	Environ []string
	// Secrets are values shell commands must never see, such as the model's
	// API key: variables holding them are taken out of the environment.
	Secrets []string
	// Unsaved names the files the editor holds with changes not on disk,
	// which a shell command will not see; nil: none (no editor).
	Unsaved func() []string
	// Diagnostics returns the problems the editor shows, by resolved path:
	// those of the file at abs, or with abs "", of every file that has some.
	// nil: get_diagnostics is not offered.
	Diagnostics func(abs string) map[string][]agent.Diagnostic

	// Skills are the skills activate_skill loads; none: it is not offered.
	Skills []skill.Skill
	// Web fetches pages for web_fetch; nil: web_fetch is not offered.
	Web *web.Client
	// Search offers google_web_search: a model call grounded in Google
	// Search.
	Search bool
	// UserDir is the user's agentls folder, where save_memory keeps the
	// facts about the user (its AGENTS.md or GEMINI.md); "": save_memory
	// writes only the workspace folder's.
	UserDir string
}

// PathPolicy decides whether a tool may use a secret-looking file; path is
// relative to its workspace folder. policy.Policy implements it.
type PathPolicy interface {
	AllowsPath(tool, path string) bool
}

// Builtin returns the built-in tools for one run. Tools keep per-run state
// (which files the run has read), so each run needs its own set.
func Builtin(env Env) []agent.Tool {
	st := &state{env: env, read: make(map[string]bool), active: make(map[string]bool), rejected: make(map[string]bool)}
	ts := []agent.Tool{readFile(st), listDirectory(st), glob(st), grepSearch(st), writeTodos()}
	if env.Diagnostics != nil {
		ts = append(ts, getDiagnostics(st))
	}
	if len(env.Skills) > 0 {
		ts = append(ts, activateSkill(st))
	}
	if env.Web != nil {
		ts = append(ts, webFetch(st))
	}
	if env.Search {
		ts = append(ts, googleWebSearch())
	}
	if env.Proposer != nil && env.Mode != policy.ModePlan {
		ts = append(ts, replace(st), writeFile(st), runShellCommand(st), saveMemory(st))
	}
	return ts
}

// NeedsProposer reports whether the built-in tool name is offered only to a
// run with a Proposer (outside plan mode): a tool that changes files or runs
// commands. A definition that lists one asks for a run that can propose.
func NeedsProposer(name string) bool { return proposing()[name] }

// proposing is the set of the names NeedsProposer reports, made once.
var proposing = sync.OnceValue(func() map[string]bool {
	names := map[string]bool{}
	for _, t := range Builtin(Env{Proposer: noProposer{}}) {
		names[t.Declaration().Name] = true
	}
	for _, t := range Builtin(Env{}) {
		delete(names, t.Declaration().Name)
	}
	return names
})

// Names are the names of every built-in tool a run can be offered.
func Names() []string {
	var names []string
	all := Env{Proposer: noProposer{}, Web: web.New(web.Config{}), Search: true, Skills: []skill.Skill{{Name: "skill"}},
		Diagnostics: func(string) map[string][]agent.Diagnostic { return nil }}
	for _, t := range Builtin(all) {
		names = append(names, t.Declaration().Name)
	}
	return names
}

// noProposer stands for a run's Proposer where only the tools offered
// matter.
type noProposer struct{}

func (noProposer) Propose(context.Context, agent.Change) (agent.Decision, error) {
	return agent.Decision{}, errors.New("no proposer")
}

// state is shared by the tools of one run.
type state struct {
	env Env

	mu       sync.Mutex
	read     map[string]bool // resolved paths this run has read
	active   map[string]bool // skills activated in this run
	rejected map[string]bool // facts (memory.Key) the user would not have remembered
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
// names the real path, so that two spellings of one file ("a.go",
// "/ws/a.go", a symlink to it) share a lock; a path that does not resolve
// keeps its own spelling (the call fails anyway).
func (s *state) pathLock(p string) []string {
	if p == "" {
		return []string{"*"}
	}
	if abs, err := s.env.FS.Resolve(p); err == nil {
		if hops, err := s.env.FS.Links(abs); err == nil {
			abs = hops[len(hops)-1]
		}
		return []string{"file:" + abs}
	}
	return []string{"file:" + filepath.Clean(p)}
}

// access is what a tool wants to do with a file.
type access int

const (
	reading access = iota
	writing
)

// A secretError refuses a secret-looking file.
type secretError struct{ msg string }

func (e *secretError) Error() string { return e.msg }

// resolve resolves a path a tool was given and checks the tool may use it
// for acc. The error is for the model: it says what was refused and why.
func (s *state) resolve(tool, p string, acc access) (string, error) {
	hops, err := s.resolveLinks(tool, p, acc)
	if err != nil {
		return "", err
	}
	return hops[0], nil
}

// resolveLinks is resolve, returning every path the resolved one leads
// through (see agent.FS Links): the resolved path first, the real one last.
func (s *state) resolveLinks(tool, p string, acc access) ([]string, error) {
	abs, err := s.env.FS.Resolve(p)
	if err != nil {
		return nil, err
	}
	hops, err := s.env.FS.Links(abs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.env.FS.Rel(abs), err)
	}
	if err := s.allowed(tool, hops, acc); err != nil {
		return nil, err
	}
	return hops, nil
}

// allowed checks that tool may use the resolved path hops[0], which leads
// through hops, for acc: no hop may be in a protected folder (.git/,
// .agentls/) when writing, or look like a file of secrets that no policy
// rule allows.
func (s *state) allowed(tool string, hops []string, acc access) error {
	name := s.env.FS.Rel(hops[0])
	for _, h := range hops {
		hop := s.env.FS.Rel(h)
		subject, rule := name, "a policy rule with a pathPattern" // what is refused, and where it leads
		if hop != name {
			subject = fmt.Sprintf("%s leads through a symlink to %s, which", name, hop)
			rule += " matching " + hop
		}
		if d := policy.ProtectedDir(hop); acc == writing && d != "" {
			return fmt.Errorf("%s is inside %s/, which agentls never changes; leave it to the user", subject, d)
		}
		if policy.IsSecret(h) && !s.allowsSecret(tool, hop) {
			return &secretError{fmt.Sprintf("%s looks like a file of secrets (keys, tokens, credentials), which tools may not use; "+
				"%s can allow it. Do not try to reach it another way", subject, rule)}
		}
	}
	return nil
}

// secret reports whether tool must not use the resolved path abs because
// abs, or a path it leads to through symlinks, looks like a file of
// secrets that no policy rule allows.
func (s *state) secret(tool, abs string) bool {
	hops, err := s.env.FS.Links(abs)
	if err != nil {
		hops = []string{abs} // it cannot be opened; its own name still counts
	}
	return s.secretHops(tool, hops)
}

// secretHops is secret for a path whose hops (agent.FS Links) are known:
// walkers resolve the links of their start folder once, not every file's
// (walkResult.hops). Names are cheap to judge; the full check runs only
// for a path that looks secret.
func (s *state) secretHops(tool string, hops []string) bool {
	for _, h := range hops {
		if policy.IsSecret(h) {
			var se *secretError
			return errors.As(s.allowed(tool, hops, reading), &se)
		}
	}
	return false
}

func (s *state) allowsSecret(tool, name string) bool {
	return s.env.Policy != nil && s.env.Policy.AllowsPath(tool, name)
}

// describe is a call's progress line, "Reading a.go"; "" (no line) when the
// arguments name no path, as when they do not decode.
func describe(verb, path string) string {
	if path == "" {
		return ""
	}
	return verb + " " + path
}
