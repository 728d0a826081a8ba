package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/memory"
)

//go:embed save_memory.md
var saveMemoryDoc string

// Memory scopes: whose context file keeps a fact.
const (
	scopeUser      = "user"
	scopeWorkspace = "workspace"
)

// memoryFiles are the context files a fact may go to, in order of
// preference when none has the section yet (package workspace reads both).
var memoryFiles = []string{"AGENTS.md", "GEMINI.md"}

type saveMemoryArgs struct {
	Fact  string `json:"fact"`
	Scope string `json:"scope,omitempty"`
}

type saveMemoryTool struct {
	*agent.Func[saveMemoryArgs]
	st *state
}

// saveMemory proposes adding a fact to a context file: the proposal is the
// user's one confirmation. A fact the user rejected is not proposed again
// in the run.
func saveMemory(st *state) agent.Tool {
	scopes := []any{scopeWorkspace}
	if st.env.UserDir != "" {
		scopes = []any{scopeUser, scopeWorkspace}
	}
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"fact":  {Type: "string", Description: "the fact to remember: one short line of plain text"},
			"scope": {Type: "string", Enum: scopes, Description: "user: the user's own context file, for every project (the default); workspace: the workspace folder's"},
		},
		Required: []string{"fact"},
	}
	t := saveMemoryTool{st: st}
	t.Func = agent.NewFuncSchema("save_memory", saveMemoryDoc, schema, func(ctx context.Context, call *agent.Call, a saveMemoryArgs) (agent.Result, error) {
		fact, err := memory.Check(a.Fact)
		if err != nil {
			return agent.Errorf("%v. Nothing was saved.", err), nil
		}
		if slices.ContainsFunc(st.env.Secrets, func(v string) bool { return len(v) >= 8 && strings.Contains(fact, v) }) {
			return agent.Errorf("the fact holds a secret value (an API key); secrets are never remembered. Nothing was saved."), nil
		}
		if st.wasRejected(fact) {
			return agent.Errorf("the user rejected remembering this fact earlier in this run; do not propose it again."), nil
		}
		target, err := st.memoryFile(t.scope(a))
		if err != nil {
			return agent.Errorf("%v. Nothing was saved.", err), nil
		}
		if memory.Has(target.old, fact) {
			return agent.Result{Output: fmt.Sprintf("%s already remembers this fact; nothing to change.", target.name), Display: "Already remembered"}, nil
		}
		ch := agent.Change{Path: target.path, Name: target.name, Target: target.target, Old: target.old, New: memory.Add(target.old, fact),
			Create: target.create, Tool: "save_memory", Reason: "Remember: " + fact}
		d, err := call.Propose(ctx, st.env.Proposer, ch)
		if err != nil {
			return agent.Result{}, err
		}
		switch d.Outcome {
		case agent.OutcomeApplied:
			return agent.Result{Output: fmt.Sprintf("The user accepted: %s now remembers the fact, and later runs will read it.", target.name),
				Display: "Remembered in " + target.name}, nil
		case agent.OutcomeStaged:
			return agent.Result{Output: fmt.Sprintf("Staged: the fact is proposed for %s with the run's other changes when you call complete_task.", target.name),
				Display: "Staged memory in " + target.name}, nil
		case agent.OutcomeRejected:
			st.reject(fact)
			msg := "The user rejected remembering this fact; nothing was saved."
			if d.Message != "" {
				msg += " Reason: " + sentence(d.Message)
			}
			return agent.Result{Output: msg + " Do not propose it again.", IsError: true, Display: "Memory rejected"}, nil
		case agent.OutcomeConflict:
			return agent.Result{Output: fmt.Sprintf("conflict: %s changed while the fact was proposed; nothing was saved. Try once more.", target.name),
				IsError: true, Display: "Conflict on " + target.name}, nil
		}
		msg := fmt.Sprintf("The editor could not save the fact to %s", target.name)
		if d.Message != "" {
			msg += ": " + d.Message
		}
		return agent.Result{Output: msg, IsError: true, Display: "Failed to remember"}, nil
	}).WithKind(agent.KindEdit)
	return t
}

func (t saveMemoryTool) scope(a saveMemoryArgs) string {
	if a.Scope != "" {
		return a.Scope
	}
	if t.st.env.UserDir != "" {
		return scopeUser
	}
	return scopeWorkspace
}

// Locks implements agent.Locker: facts of one scope go to one file, one
// after another.
func (t saveMemoryTool) Locks(args json.RawMessage) []string {
	var a saveMemoryArgs
	json.Unmarshal(args, &a)
	return []string{"memory:" + t.scope(a)}
}

func (saveMemoryTool) Describe(json.RawMessage) string { return "Remembering a fact" }

// A memoryTarget is the context file a fact goes to.
type memoryTarget struct {
	path, name string
	target     string // the file a symlink at path leads to; "" when not checked
	old        string
	create     bool
}

// memoryFile picks the context file of scope: the one whose section of
// remembered facts exists, else the first that exists, else a new
// AGENTS.md.
func (s *state) memoryFile(scope string) (memoryTarget, error) {
	var cands []memoryTarget
	for _, name := range memoryFiles {
		var t memoryTarget
		var err error
		if scope == scopeUser {
			t, err = s.userMemoryFile(name)
		} else {
			t, err = s.workspaceMemoryFile(name)
		}
		if err != nil {
			return memoryTarget{}, err
		}
		cands = append(cands, t)
	}
	for _, t := range cands {
		if !t.create && len(memory.Facts(t.old)) > 0 {
			return t, nil
		}
	}
	for _, t := range cands {
		if !t.create {
			return t, nil
		}
	}
	return cands[0], nil
}

func (s *state) workspaceMemoryFile(name string) (memoryTarget, error) {
	hops, err := s.resolveLinks("save_memory", name, writing)
	if err != nil {
		return memoryTarget{}, err
	}
	// Through a symlink (AGENTS.md -> CLAUDE.md), the file it leads to
	// changes, as with write_file.
	t := memoryTarget{}
	t.path, t.name, t.target = s.shown(hops)
	t.old, err = s.env.FS.ReadFile(t.target)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.create = true
	case err != nil:
		return memoryTarget{}, fmt.Errorf("cannot read %s: %v", t.name, err)
	}
	return t, nil
}

// userMemoryFile is name in the user's folder, where it really leads: a
// link out of that folder is refused.
func (s *state) userMemoryFile(name string) (memoryTarget, error) {
	if s.env.UserDir == "" {
		return memoryTarget{}, errors.New("there is no user folder to remember facts in; use scope workspace")
	}
	dir, err := filepath.EvalSymlinks(s.env.UserDir)
	if errors.Is(err, fs.ErrNotExist) {
		dir = filepath.Clean(s.env.UserDir)
	} else if err != nil {
		return memoryTarget{}, err
	}
	path := filepath.Join(dir, name)
	t := memoryTarget{path: path, name: path}
	if real, err := filepath.EvalSymlinks(path); err == nil && real != path {
		if filepath.Dir(real) != dir {
			return memoryTarget{}, fmt.Errorf("%s leads to %s, outside the user's folder; it is not written through", path, real)
		}
		t.path = real
	}
	b, err := os.ReadFile(t.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		t.create = true
	case err != nil:
		return memoryTarget{}, fmt.Errorf("cannot read %s: %v", t.name, err)
	}
	t.old = string(b)
	return t, nil
}

func (s *state) wasRejected(fact string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected[memory.Key(fact)]
}

func (s *state) reject(fact string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rejected[memory.Key(fact)] = true
}
