package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/agent/skill"
)

//go:embed activate_skill.md
var activateSkillDoc string

type activateSkillArgs struct {
	Name string `json:"name"`
}

type activateSkillTool struct {
	*agent.Func[activateSkillArgs]
}

// activateSkill loads a skill's instructions, once per run, and lists its
// other files; the skill's folder becomes readable with read_file when it
// lies outside the workspace (the user's own skills).
func activateSkill(st *state) agent.Tool {
	names := make([]any, len(st.env.Skills))
	for i, s := range st.env.Skills {
		names[i] = s.Name
	}
	schema := &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"name": {Type: "string", Enum: names, Description: "the skill to activate, as the system prompt names it"},
		},
		Required: []string{"name"},
	}
	return activateSkillTool{agent.NewFuncSchema("activate_skill", activateSkillDoc, schema, func(ctx context.Context, call *agent.Call, a activateSkillArgs) (agent.Result, error) {
		i := slices.IndexFunc(st.env.Skills, func(s skill.Skill) bool { return s.Name == a.Name })
		if i < 0 {
			return agent.Errorf("there is no skill %q; the skills are: %s", a.Name, skillNames(st.env.Skills)), nil
		}
		s := st.env.Skills[i]
		if !st.activate(s.Name) {
			return agent.Result{Output: fmt.Sprintf("The skill %s is already active in this run: its instructions are earlier in this conversation. Go on following them.", s.Name),
				Display: "Skill " + s.Name + " already active"}, nil
		}
		body, files, total, err := s.Body()
		if err != nil {
			st.deactivate(s.Name)
			return agent.Errorf("cannot load the skill %s: %v", s.Name, err), nil
		}
		dir := st.skillDir(s)
		var b strings.Builder
		fmt.Fprintf(&b, "<activated_skill name=%q>\n<instructions>\n%s\n</instructions>\n", s.Name, body)
		if len(files) > 0 {
			fmt.Fprintf(&b, "<files folder=%q>\n", dir)
			for _, f := range files {
				fmt.Fprintf(&b, "%s\n", filepath.ToSlash(filepath.Join(dir, filepath.FromSlash(f))))
			}
			if total > len(files) {
				fmt.Fprintf(&b, "… and %d more files\n", total-len(files))
			}
			b.WriteString("</files>\n")
		}
		b.WriteString("</activated_skill>\n")
		if len(files) > 0 {
			b.WriteString("Follow the instructions. Read the skill's files with read_file, by the paths above, when the instructions call for them; run its scripts only with run_shell_command.")
		} else {
			b.WriteString("Follow the instructions.")
		}
		display := "Using skill " + s.Name
		if total > 0 {
			display += fmt.Sprintf(" (%d %s)", total, plural(total, "file", "files"))
		}
		return agent.Result{Output: b.String(), Display: display}, nil
	}).WithKind(agent.KindRead)}
}

func (activateSkillTool) Describe(args json.RawMessage) string {
	var a activateSkillArgs
	json.Unmarshal(args, &a)
	if a.Name == "" {
		return ""
	}
	return "Using skill: " + a.Name
}

func skillNames(ss []skill.Skill) string {
	names := make([]string, len(ss))
	for i, s := range ss {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}

// activate marks a skill active; false when it already was.
func (s *state) activate(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.active[name] {
		return false
	}
	s.active[name] = true
	return true
}

func (s *state) deactivate(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.active, name)
}

// skillDir names a skill's folder as read_file takes it: relative to the
// workspace when it is inside, else absolute.
func (s *state) skillDir(sk skill.Skill) string {
	if abs, err := s.env.FS.Resolve(sk.Dir); err == nil {
		return s.env.FS.Rel(abs)
	}
	return sk.Dir
}

// readSkillFile reads p when it is a file of a skill activated in this run
// that lies outside the workspace (a user's skill), which the workspace's
// file view cannot reach. ok is false when p is no such file.
func (s *state) readSkillFile(p string) (text string, ok bool, err error) {
	if !filepath.IsAbs(p) {
		return "", false, nil
	}
	p = filepath.Clean(p)
	for _, sk := range s.env.Skills {
		s.mu.Lock()
		active := s.active[sk.Name]
		s.mu.Unlock()
		if !active || !sk.Contains(p) {
			continue
		}
		if policy.IsSecret(p) {
			return "", true, errors.New("it looks like a file of secrets (keys, tokens, credentials), which tools may not use")
		}
		fi, err := os.Stat(p)
		if err != nil {
			return "", true, err
		}
		if fi.Size() > maxSkillFileBytes {
			return "", true, fmt.Errorf("larger than %d MB", maxSkillFileBytes>>20)
		}
		b, err := os.ReadFile(p)
		return string(b), true, err
	}
	return "", false, nil
}

// maxSkillFileBytes caps a skill's file read outside the workspace.
const maxSkillFileBytes = 8 << 20
