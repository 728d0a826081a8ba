package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/agentls/agentls/agent"
)

//go:embed glob.md
var globDoc string

// maxGlobResults caps one glob result.
const maxGlobResults = 100

type globArgs struct {
	Pattern string `json:"pattern" jsonschema:"a glob pattern such as **/*.go or src/**/*.{ts,tsx}"`
	DirPath string `json:"dir_path,omitempty" jsonschema:"the folder to search, relative to the workspace root (default: the root)"`
}

type globTool struct{ *agent.Func[globArgs] }

func glob(st *state) agent.Tool {
	return globTool{agent.NewFunc("glob", globDoc, func(ctx context.Context, call *agent.Call, a globArgs) (agent.Result, error) {
		dir, err := st.resolve("glob", cmp.Or(a.DirPath, "."), reading)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		pattern, err := relativePattern(st.env.FS, dir, a.Pattern)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		where := place(st.env.FS.Rel(dir))
		// Only the folder the pattern's fixed part names needs walking. It
		// is resolved like any path: a link there must not lead out.
		base, _ := doublestar.SplitPattern(pattern)
		start := dir
		if base != "." {
			if start, err = st.env.FS.Resolve(filepath.Join(dir, filepath.FromSlash(base))); err != nil {
				return agent.Errorf("%v", err), nil
			}
		}
		if _, err := st.env.FS.ReadDir(start); err != nil {
			return agent.Result{Output: fmt.Sprintf("No files match %q in %s.", a.Pattern, where), Display: "Found no files"}, nil
		}
		res, err := walk(ctx, st.env.FS, start, walkOptions{keep: matcher(pattern, base), stat: true})
		if err != nil {
			return agent.Result{}, err
		}
		found := res.files
		var b strings.Builder
		switch {
		case len(found) == 0:
			fmt.Fprintf(&b, "No files match %q in %s.\n", a.Pattern, where)
		case len(found) > maxGlobResults:
			fmt.Fprintf(&b, "%d files match %q in %s; showing the %d newest:\n", len(found), a.Pattern, where, maxGlobResults)
		default:
			fmt.Fprintf(&b, "%s %q in %s, newest first:\n", count(len(found), "file matches", "files match"), a.Pattern, where)
		}
		for _, i := range newest(found, maxGlobResults) {
			b.WriteString(st.env.FS.Rel(res.path(&found[i])))
			b.WriteString("\n")
		}
		if len(found) > maxGlobResults {
			fmt.Fprintf(&b, "[%d older files not shown; narrow the pattern or dir_path to see them.]\n", len(found)-maxGlobResults)
		}
		b.WriteString(walkNotes(res))
		return agent.Result{Output: b.String(), Display: "Found " + count(len(found), "file", "files")}, nil
	}).WithKind(agent.KindRead)}
}

func (globTool) Describe(args json.RawMessage) string {
	var a globArgs
	json.Unmarshal(args, &a)
	return describe("Finding", a.Pattern)
}

// matcher returns the keep of a walk from the folder base (the fixed part
// of pattern, as doublestar.SplitPattern gives it): whether the file at rel
// below it matches pattern. It is doublestar.Match, without its work for
// the common shapes: every file (nil), or every file whose name ends so.
func matcher(pattern, base string) func(rel string) bool {
	rest := pattern
	switch {
	case base == ".":
	case strings.HasPrefix(pattern, base+"/") && !strings.ContainsRune(base, '\\'):
		rest = pattern[len(base)+1:]
	default:
		// The fixed part has escapes (which SplitPattern may have
		// taken out): match the whole path.
		return func(rel string) bool {
			ok, _ := doublestar.Match(pattern, base+"/"+rel)
			return ok
		}
	}
	switch {
	case rest == "**" || rest == "**/*":
		return nil
	case strings.HasPrefix(rest, "**/*") && plainSuffix(rest[len("**/*"):]):
		suffix := rest[len("**/*"):]
		return func(rel string) bool { return strings.HasSuffix(rel, suffix) }
	}
	return func(rel string) bool {
		ok, _ := doublestar.Match(rest, rel)
		return ok
	}
}

// plainSuffix reports whether a name ends with s exactly when
// doublestar.Match("*"+s, name): s has no special character, no '/', and
// is valid UTF-8 without U+FFFD (doublestar matches U+FFFD and invalid
// bytes alike).
func plainSuffix(s string) bool {
	return !strings.ContainsAny(s, "*?[]{}\\/") && utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError)
}

// newest returns the indices of the n newest files, newest first: what the
// user is working on. Ties keep path order.
func newest(files []walkedFile, n int) []int32 {
	order := make([]int32, len(files))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(i, j int32) int {
		return cmp.Or(cmp.Compare(files[j].mod, files[i].mod), cmp.Compare(i, j))
	})
	return order[:min(n, len(order))]
}

// relativePattern checks a glob pattern and makes it relative to dir: an
// absolute pattern must lie inside dir.
func relativePattern(fsys agent.FS, dir, pattern string) (string, error) {
	pattern = filepath.ToSlash(strings.TrimSpace(pattern))
	if pattern == "" {
		return "", fmt.Errorf("pattern is empty; give a glob such as **/*.go")
	}
	if path.IsAbs(pattern) {
		base, _ := doublestar.SplitPattern(pattern)
		abs, err := fsys.Resolve(base)
		if err != nil {
			return "", err
		}
		rel, err := filepath.Rel(dir, abs)
		if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
			return "", fmt.Errorf("pattern %q is outside dir_path %s; give a pattern relative to dir_path", pattern, fsys.Rel(dir))
		}
		pattern = path.Join(filepath.ToSlash(rel), strings.TrimPrefix(pattern[len(base):], "/"))
	}
	pattern = strings.TrimPrefix(pattern, "./")
	if !doublestar.ValidatePattern(pattern) {
		return "", fmt.Errorf("pattern %q is not a valid glob (check its brackets and braces)", pattern)
	}
	if pattern == ".." || strings.HasPrefix(pattern, "../") || strings.Contains(pattern, "/../") {
		return "", fmt.Errorf("pattern %q leaves dir_path; use dir_path to search another folder", pattern)
	}
	return pattern, nil
}

// place names a folder in messages: its workspace-relative path, or "the
// workspace root".
func place(rel string) string {
	if rel == "." {
		return "the workspace root"
	}
	return rel
}

// count is "1 file" or "3 files".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// walkNotes tells what a walk left out.
func walkNotes(res walkResult) string {
	var notes []string
	if res.ignored > 0 {
		notes = append(notes, fmt.Sprintf("%d ignored paths (.git, .gitignore, .agentlsignore) were not searched", res.ignored))
	}
	if res.links > 0 {
		notes = append(notes, count(res.links, "symbolic link", "symbolic links")+" to folders, out of the workspace or nowhere were not followed")
	}
	if len(notes) == 0 {
		return ""
	}
	return "(" + strings.Join(notes, "; ") + ")\n"
}

// plural is one or many, as n asks.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
