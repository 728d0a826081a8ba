package subagent

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"go.yaml.in/yaml/v3"

	"github.com/agentls/agentls/agent"
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

// Load returns the agents a run may start from a workspace folder:
// codebase_investigator, then the user's custom agents (userDir/agents/*.md,
// when userDir is not ""), then the folder's (root/.agentls/agents/*.md),
// later ones replacing earlier ones of the same name. Bad files are
// reported and left out.
func Load(userDir, root string) ([]agent.Definition, []error) {
	sets := [][]agent.Definition{{Investigator()}}
	var errs []error
	var dirs []string
	if userDir != "" {
		dirs = append(dirs, filepath.Join(userDir, "agents"))
	}
	dirs = append(dirs, filepath.Join(root, ".agentls", "agents"))
	for _, dir := range dirs {
		defs, e := LoadDir(dir)
		errs = append(errs, e...)
		sets = append(sets, defs)
	}
	return Merge(sets...), errs
}
