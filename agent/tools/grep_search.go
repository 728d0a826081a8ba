package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/agent"
)

//go:embed grep_search.md
var grepSearchDoc string

// Caps of one grep_search result.
const (
	maxMatchesPerFile = 20
	maxMatches        = 200
	maxMatchLine      = 300     // bytes of a matching line shown
	maxGrepFileSize   = 2 << 20 // larger files are skipped
)

type grepSearchArgs struct {
	Pattern string `json:"pattern" jsonschema:"a regular expression (RE2 syntax), matched against each line"`
	DirPath string `json:"dir_path,omitempty" jsonschema:"the folder to search, relative to the workspace root (default: the root)"`
	Include string `json:"include,omitempty" jsonschema:"a glob the files must match, such as *.go or src/**/*.{ts,tsx}"`
}

type grepSearchTool struct{ *agent.Func[grepSearchArgs] }

func grepSearch(st *state) agent.Tool {
	return grepSearchTool{agent.NewFunc("grep_search", grepSearchDoc, func(ctx context.Context, call *agent.Call, a grepSearchArgs) (agent.Result, error) {
		m, err := newLineMatcher(a.Pattern)
		if err != nil {
			return agent.Errorf("invalid regular expression %q: %v (RE2 syntax: no lookarounds or backreferences)", a.Pattern, err), nil
		}
		if a.Include != "" && !doublestar.ValidatePattern(a.Include) {
			return agent.Errorf("include %q is not a valid glob", a.Include), nil
		}
		dir, err := st.resolve("grep_search", cmp.Or(a.DirPath, "."), reading)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		if _, err := st.env.FS.ReadDir(dir); err != nil {
			return agent.Errorf("cannot search %s: %v", cmp.Or(a.DirPath, "."), err), nil
		}
		var keep func(string) bool
		if a.Include != "" {
			keep = func(rel string) bool { return includes(a.Include, rel) }
		}
		res, err := walk(ctx, st.env.FS, dir, walkOptions{keep: keep})
		if err != nil {
			return agent.Result{}, err
		}
		g := st.grep(ctx, m, res)
		if err := ctx.Err(); err != nil {
			return agent.Result{}, err
		}
		return grepReport(a, place(st.env.FS.Rel(dir)), g, res), nil
	}).WithKind(agent.KindRead)}
}

// includes reports whether the file at rel matches the include glob: a glob
// without "/" matches the file's name.
func includes(include, rel string) bool {
	if !strings.Contains(include, "/") {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(include, rel)
	return ok
}

// grepReport prints the hits in path order, at most maxMatches lines and
// maxMatchesPerFile of a file, under a first line that counts them all and
// says what is shown; then what the search left out.
func grepReport(a grepSearchArgs, where string, g grepResult, res walkResult) agent.Result {
	scope := where
	if a.Include != "" {
		scope += fmt.Sprintf(" (files matching %s)", a.Include)
	}
	var b strings.Builder
	switch {
	case g.matches == 0:
		fmt.Fprintf(&b, "No matches for /%s/ in %s.\n", a.Pattern, scope)
	case g.shown == g.matches:
		fmt.Fprintf(&b, "%s for /%s/ in %s in %s:\n", count(g.matches, "match", "matches"), a.Pattern, count(g.files, "file", "files"), scope)
	default:
		fmt.Fprintf(&b, "%s for /%s/ in %s in %s; showing the first %d by path, at most %d a file:\n",
			count(g.matches, "match", "matches"), a.Pattern, count(g.files, "file", "files"), scope, g.shown, maxMatchesPerFile)
	}
	for _, h := range g.hits {
		for _, l := range h.lines {
			b.WriteString(l)
			b.WriteString("\n")
		}
		if more := h.matches - len(h.lines); more > 0 && len(h.lines) == maxMatchesPerFile {
			fmt.Fprintf(&b, "%s: [%d more %s]\n", h.name, more, plural(more, "match", "matches"))
		}
	}
	if g.shown < g.matches {
		fmt.Fprintf(&b, "[%d matches not shown; narrow the pattern, dir_path or include to see them.]\n", g.matches-g.shown)
	}
	var notes []string
	if g.skips.binary > 0 {
		notes = append(notes, fmt.Sprintf("%d binary files", g.skips.binary))
	}
	if g.skips.large > 0 {
		notes = append(notes, fmt.Sprintf("%d files over %d MB", g.skips.large, maxGrepFileSize>>20))
	}
	if g.skips.secret > 0 {
		notes = append(notes, fmt.Sprintf("%d secret-looking files", g.skips.secret))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "(skipped %s)\n", strings.Join(notes, ", "))
	}
	b.WriteString(walkNotes(res))
	return agent.Result{Output: b.String(), Display: "Found " + count(g.matches, "match", "matches")}
}

func (grepSearchTool) Describe(args json.RawMessage) string {
	var a grepSearchArgs
	json.Unmarshal(args, &a)
	return describe("Searching for", a.Pattern)
}
