package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"runtime"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
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

// A grepHit is the matches of one file.
type grepHit struct {
	name    string   // the path as the user sees it
	lines   []string // "name:line: text", at most maxMatchesPerFile
	matches int      // all matches of the file
}

// grepSkips counts the files a search left out, and why.
type grepSkips struct {
	binary, secret, large int
}

func grepSearch(st *state) agent.Tool {
	return grepSearchTool{agent.NewFunc("grep_search", grepSearchDoc, func(ctx context.Context, call *agent.Call, a grepSearchArgs) (agent.Result, error) {
		re, err := regexp.Compile(a.Pattern)
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
		res, err := walk(ctx, st.env.FS, dir, maxWalkFiles)
		if err != nil {
			return agent.Result{}, err
		}
		var files []walkedFile
		for _, f := range res.files {
			if includes(a.Include, f.rel) {
				files = append(files, f)
			}
		}
		hits, skips := st.grepFiles(ctx, re, files)
		if err := ctx.Err(); err != nil {
			return agent.Result{}, err
		}
		return grepReport(a, place(st.env.FS.Rel(dir)), hits, skips, res), nil
	}).WithKind(agent.KindRead)}
}

// includes reports whether the file at rel matches the include glob: a glob
// without "/" matches the file's name.
func includes(include, rel string) bool {
	if include == "" {
		return true
	}
	if !strings.Contains(include, "/") {
		rel = path.Base(rel)
	}
	ok, _ := doublestar.Match(include, rel)
	return ok
}

// grepFiles searches files in parallel and returns their hits in the files'
// order.
func (st *state) grepFiles(ctx context.Context, re *regexp.Regexp, files []walkedFile) ([]grepHit, grepSkips) {
	hits := make([]grepHit, len(files))
	var (
		mu    sync.Mutex
		skips grepSkips
		wg    sync.WaitGroup
		next  = make(chan int)
	)
	skip := func(n *int) {
		mu.Lock()
		*n++
		mu.Unlock()
	}
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := range next {
				f := files[i]
				name := st.env.FS.Rel(f.path)
				switch {
				case policy.IsSecret(f.path) && !st.allowsSecret("grep_search", name):
					skip(&skips.secret)
					continue
				case f.size > maxGrepFileSize:
					skip(&skips.large)
					continue
				}
				text, err := st.env.FS.ReadFile(f.path)
				if err != nil {
					continue // gone since the walk, or a link to a folder
				}
				if _, bin := binaryKind(text); bin {
					skip(&skips.binary)
					continue
				}
				hits[i] = grepText(name, text, re)
			}
		})
	}
feed:
	for i := range files {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	return hits, skips
}

// grepText finds the lines of text that re matches.
func grepText(name, text string, re *regexp.Regexp) grepHit {
	h := grepHit{name: name}
	// Most files do not match at all: skip their line split. A pattern
	// anchored at line ends or at the text's ends may match a line and not
	// the whole text.
	if p := re.String(); !strings.ContainsAny(p, "^$") && !strings.Contains(p, `\A`) && !strings.Contains(p, `\z`) && !re.MatchString(text) {
		return h
	}
	n := 0
	for line := range strings.Lines(text) {
		n++
		line = strings.TrimRight(line, "\r\n")
		if !re.MatchString(line) {
			continue
		}
		h.matches++
		if len(h.lines) < maxMatchesPerFile {
			if len(line) > maxMatchLine {
				line = truncateUTF8(line, maxMatchLine) + " […]"
			}
			h.lines = append(h.lines, fmt.Sprintf("%s:%d: %s", name, n, line))
		}
	}
	return h
}

// grepReport prints the hits: at most maxMatches lines in path order, then
// what was left out.
func grepReport(a grepSearchArgs, where string, hits []grepHit, skips grepSkips, res walkResult) agent.Result {
	var b strings.Builder
	total, shown, files := 0, 0, 0
	var capped []string
	for _, h := range hits {
		if h.matches == 0 {
			continue
		}
		files++
		total += h.matches
		if h.matches > len(h.lines) {
			capped = append(capped, h.name)
		}
		for _, l := range h.lines {
			if shown < maxMatches {
				b.WriteString(l)
				b.WriteString("\n")
				shown++
			}
		}
	}
	scope := where
	if a.Include != "" {
		scope += fmt.Sprintf(" (files matching %s)", a.Include)
	}
	var head string
	if total == 0 {
		head = fmt.Sprintf("No matches for /%s/ in %s.\n", a.Pattern, scope)
	} else {
		head = fmt.Sprintf("%s for /%s/ in %s in %s:\n", count(total, "match", "matches"), a.Pattern, count(files, "file", "files"), scope)
	}
	if len(capped) > 0 {
		fmt.Fprintf(&b, "[Only the first %d matches of a file are shown; more in: %s.]\n", maxMatchesPerFile, strings.Join(capped, ", "))
	}
	if total > shown {
		fmt.Fprintf(&b, "[Showing %d of %d matches; narrow the pattern, dir_path or include to see the rest.]\n", shown, total)
	}
	var notes []string
	if skips.binary > 0 {
		notes = append(notes, fmt.Sprintf("%d binary files", skips.binary))
	}
	if skips.large > 0 {
		notes = append(notes, fmt.Sprintf("%d files over %d MB", skips.large, maxGrepFileSize>>20))
	}
	if skips.secret > 0 {
		notes = append(notes, fmt.Sprintf("%d secret-looking files", skips.secret))
	}
	if len(notes) > 0 {
		fmt.Fprintf(&b, "(skipped %s)\n", strings.Join(notes, ", "))
	}
	b.WriteString(walkNotes(res))
	return agent.Result{Output: head + b.String(), Display: "Found " + count(total, "match", "matches")}
}

func (grepSearchTool) Describe(args json.RawMessage) string {
	var a grepSearchArgs
	json.Unmarshal(args, &a)
	return describe("Searching for", a.Pattern)
}
