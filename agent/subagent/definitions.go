package subagent

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

//go:embed codebase_investigator.md
var investigatorPrompt string

// Investigator is the built-in codebase_investigator: a read-only agent that
// explores the workspace and returns a structured report.
func Investigator() agent.Definition {
	str := &jsonschema.Schema{Type: "string"}
	list := func() *jsonschema.Schema { // schemas must form a tree: one node each
		return &jsonschema.Schema{Type: "array", Items: &jsonschema.Schema{Type: "string"}}
	}
	return agent.Definition{
		Name:         "codebase_investigator",
		Description:  "Delegate a question about the codebase to a read-only investigator that searches and reads files and returns a report: a summary, the steps it took and the relevant paths. Use it for broad exploration (where is X handled, what would a change to Y touch) to keep your own context small.",
		Instructions: investigatorPrompt,
		Tools:        []string{"list_directory", "glob", "grep_search", "read_file"},
		OutputSchema: &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"summary":           str,
				"exploration_trace": list(),
				"relevant_paths":    list(),
			},
			Required: []string{"summary", "exploration_trace", "relevant_paths"},
		},
	}
}

// frontMatter is the header of a custom agent file.
type frontMatter struct {
	Name           string   `yaml:"name"`
	Description    string   `yaml:"description"`
	Tools          []string `yaml:"tools"`
	Model          string   `yaml:"model"`
	MaxTurns       int      `yaml:"max_turns"`
	TimeoutMinutes float64  `yaml:"timeout_minutes"`
}

var validName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,47}$`)

// Parse reads a custom agent: YAML front matter between "---" lines (name,
// description, tools, model, max_turns, timeout_minutes), then the system
// prompt.
func Parse(src []byte) (agent.Definition, error) {
	src = bytes.ReplaceAll(src, []byte("\r\n"), []byte("\n"))
	rest, ok := bytes.CutPrefix(src, []byte("---\n"))
	if !ok {
		return agent.Definition{}, errors.New("no front matter: the file must start with a line ---")
	}
	head, body, ok := bytes.Cut(rest, []byte("\n---\n"))
	if !ok {
		if h, found := bytes.CutSuffix(rest, []byte("\n---")); found {
			head, body, ok = h, nil, true
		}
	}
	if !ok {
		return agent.Definition{}, errors.New("the front matter has no closing line ---")
	}
	var fm frontMatter
	dec := yaml.NewDecoder(bytes.NewReader(head))
	dec.KnownFields(true)
	if err := dec.Decode(&fm); err != nil {
		return agent.Definition{}, fmt.Errorf("front matter: %w", err)
	}
	switch {
	case !validName.MatchString(fm.Name):
		return agent.Definition{}, fmt.Errorf("name %q must be lower case letters, digits and underscores, starting with a letter", fm.Name)
	case strings.TrimSpace(fm.Description) == "":
		return agent.Definition{}, errors.New("description is required: the calling agent decides from it when to use this agent")
	case strings.TrimSpace(string(body)) == "":
		return agent.Definition{}, errors.New("the system prompt after the front matter is empty")
	case fm.MaxTurns < 0 || fm.TimeoutMinutes < 0:
		return agent.Definition{}, errors.New("max_turns and timeout_minutes must not be negative")
	}
	def := agent.Definition{
		Name:         fm.Name,
		Description:  strings.TrimSpace(fm.Description),
		Instructions: strings.TrimSpace(string(body)),
		Tools:        fm.Tools,
		Model:        fm.Model,
		MaxTurns:     fm.MaxTurns,
		Timeout:      time.Duration(fm.TimeoutMinutes * float64(time.Minute)),
	}
	if def.Tools == nil {
		def.Tools = []string{} // no tools listed: complete_task only
	}
	return def, nil
}

// LoadDir reads the custom agents in dir/*.md, sorted by file name. A
// missing folder is no error; a bad file is reported and left out.
func LoadDir(dir string) ([]agent.Definition, []error) {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	sort.Strings(paths)
	var defs []agent.Definition
	var errs []error
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		def, err := Parse(src)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", p, err))
			continue
		}
		defs = append(defs, def)
	}
	return defs, errs
}

// Merge combines definitions: later ones replace earlier ones of the same
// name (the workspace's agents override the user's, which override the
// built-in ones).
func Merge(sets ...[]agent.Definition) []agent.Definition {
	var out []agent.Definition
	index := map[string]int{}
	for _, set := range sets {
		for _, d := range set {
			if i, ok := index[d.Name]; ok {
				out[i] = d
				continue
			}
			index[d.Name] = len(out)
			out = append(out, d)
		}
	}
	return out
}

// ToolNames returns the names of the built-in tools (every one agent/tools
// can offer a run) and of complete_task: no custom agent may take one, or it
// would hide the tool. (Made on first use: building every tool costs a
// process that never loads an agent, such as an idle server, its start-up.)
var ToolNames = sync.OnceValue(func() []string { return append(tools.Names(), agent.CompleteTaskName) })

// WorkspaceTools returns the tools a workspace's agent may have: a
// repository can be anyone's, so its agents read the workspace and plan, and
// no more (the read tools every run is offered). An agent that needs to
// edit, run commands or reach the web belongs in the user's own agents
// folder.
var WorkspaceTools = sync.OnceValue(workspaceTools)

func workspaceTools() []string {
	var names []string
	for _, t := range tools.Builtin(tools.Env{}) {
		if agent.KindOf(t) == agent.KindRead {
			names = append(names, t.Declaration().Name)
		}
	}
	return names
}

// Load returns the agents a run may start from a workspace folder:
// codebase_investigator, then the user's custom agents (userDir/agents/*.md,
// when userDir is not ""), which may replace it, then the folder's
// (root/.agentls/agents/*.md). A repository cannot redefine the house: an
// agent named like a built-in tool (or "main") is left out, a workspace's
// agent named like the built-in or a user's agent too, and a workspace's
// agent has at most [WorkspaceTools]. Bad files and what was left out are
// reported.
func Load(userDir, root string) ([]agent.Definition, []error) {
	var errs []error
	reserved := func(d agent.Definition, file string) bool {
		if d.Name == "main" || slices.Contains(ToolNames(), d.Name) {
			errs = append(errs, fmt.Errorf("%s: agent %s left out: the name is a built-in tool's", file, d.Name))
			return true
		}
		return false
	}
	defs := []agent.Definition{Investigator()}
	if userDir != "" {
		user, e := LoadDir(filepath.Join(userDir, "agents"))
		errs = append(errs, e...)
		for _, d := range user {
			if !reserved(d, filepath.Join(userDir, "agents")) {
				defs = Merge(defs, []agent.Definition{d})
			}
		}
	}
	dir := filepath.Join(root, ".agentls", "agents")
	ws, e := LoadDir(dir)
	errs = append(errs, e...)
	for _, d := range ws {
		if reserved(d, dir) {
			continue
		}
		if slices.ContainsFunc(defs, func(o agent.Definition) bool { return o.Name == d.Name }) {
			errs = append(errs, fmt.Errorf("%s: agent %s left out: a workspace's agent cannot replace the built-in or your own agent of that name", dir, d.Name))
			continue
		}
		var dropped []string
		d.Tools = slices.DeleteFunc(slices.Clone(d.Tools), func(t string) bool {
			if slices.Contains(WorkspaceTools(), t) {
				return false
			}
			dropped = append(dropped, t)
			return true
		})
		if len(dropped) > 0 {
			errs = append(errs, fmt.Errorf("%s: agent %s runs without %s: a workspace's agents only read (move it to your own agents folder to give it more)",
				dir, d.Name, strings.Join(dropped, ", ")))
		}
		defs = append(defs, d)
	}
	return defs, errs
}
