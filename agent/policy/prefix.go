package policy

import (
	"slices"
	"strings"
)

// A toolSpec tells how a command names what it does: which options may
// come before its subcommand without changing what runs, and which of its
// subcommands have subcommands of their own.
type toolSpec struct {
	skip   []string // harmless options before the subcommand, without a value
	nested []string // subcommands whose next word is a subcommand too
	module bool     // -m MODULE names what runs (python -m pytest)
}

var toolSpecs = map[string]toolSpec{
	"git": {skip: []string{"--no-pager", "-P", "--paginate", "-p", "--no-optional-locks", "--no-replace-objects",
		"--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"},
		nested: []string{"stash", "remote", "worktree", "submodule", "notes", "bisect", "lfs"}},
	"go":      {nested: []string{"mod", "work", "tool"}},
	"npm":     {skip: []string{"--silent", "-s", "--quiet"}, nested: []string{"run", "run-script"}},
	"pnpm":    {skip: []string{"--silent", "-s"}, nested: []string{"run"}},
	"yarn":    {skip: []string{"--silent", "-s"}, nested: []string{"run"}},
	"bun":     {nested: []string{"run"}},
	"docker":  {nested: []string{"compose", "container", "image", "volume", "network", "buildx"}},
	"podman":  {nested: []string{"compose", "container", "image", "volume", "network"}},
	"kubectl": {nested: []string{"get", "describe", "logs", "config"}},
	"gh":      {nested: []string{"pr", "issue", "repo", "run", "workflow", "release"}},
	"cargo":   {skip: []string{"-q", "--quiet", "-v", "--verbose"}},
	"python":  {skip: []string{"-u", "-B", "-q", "-I", "-E", "-s", "-b"}, module: true},
	"python3": {skip: []string{"-u", "-B", "-q", "-I", "-E", "-s", "-b"}, module: true},
}

// neverAlone are commands that run whatever their arguments, files or
// repository say: shells, interpreters, version control and build
// drivers. "Always allow" is never offered for one of them without a
// subcommand.
var neverAlone = map[string]bool{}

func init() {
	for _, s := range strings.Fields(`
		sh bash dash zsh ksh mksh ash fish csh tcsh busybox pwsh powershell
		python python2 python3 node nodejs deno bun ruby perl php lua luajit java jshell
		R Rscript julia tclsh osascript awk gawk mawk nawk sed find
		git hg svn fossil
		make gmake cmake ninja gradle gradlew mvn mvnw ant bazel bazelisk buck sbt just task
		go cargo rustc npm npx pnpm pnpx yarn bunx dotnet msbuild rake bundle pip pip3 uv uvx
		poetry tox nox composer mix rebar3 stack cabal dune swift zig meson scons
		docker podman kubectl helm terraform ansible ansible-playbook vagrant nix`) {
		neverAlone[s] = true
	}
}

// neverOffered are subcommands that download or run arbitrary programs.
var neverOffered = map[string]bool{
	"npm exec": true, "pnpm exec": true, "pnpm dlx": true, "yarn dlx": true, "yarn exec": true,
	"bun x": true, "uv run": true, "go run": true, "cargo run": true, "docker run": true, "podman run": true,
	"docker exec": true, "kubectl exec": true, "git config": true,
}

// key is what a call is for: its command and its subcommands, with the
// harmless options before them skipped. "git --no-pager status -s" is
// [git status], "python3 -m pytest -x" is [python3 -m pytest], "ls -la"
// is [ls]. An option that is not known to be harmless ends it ("git -c
// alias.x=… x" is [git]). nil for a call that sets variables or whose
// command only the running shell knows.
func key(c Call) []string {
	if len(c.Assigns) > 0 || len(c.Words) == 0 || !c.Words[0].Static {
		return nil
	}
	ws := c.Words
	name := ws[0].Text
	spec := toolSpecs[baseName(name)]
	k := []string{name}
	i := 1
	for i < len(ws) && ws[i].Static && strings.HasPrefix(ws[i].Text, "-") {
		if spec.module && ws[i].Text == "-m" && i+1 < len(ws) && ws[i+1].Static && isModule(ws[i+1].Text) {
			return append(k, "-m", ws[i+1].Text)
		}
		if !slices.Contains(spec.skip, ws[i].Text) {
			return k
		}
		i++
	}
	if i < len(ws) && ws[i].Static && isPlainWord(ws[i].Text) {
		k = append(k, ws[i].Text)
		if slices.Contains(spec.nested, ws[i].Text) && i+1 < len(ws) && ws[i+1].Static && isPlainWord(ws[i+1].Text) {
			k = append(k, ws[i+1].Text)
		}
	}
	return k
}

// isModule reports whether s is a Python module name (pytest, http.server).
func isModule(s string) bool {
	for _, part := range strings.Split(s, ".") {
		if part == "" || !isIdentifier(part) {
			return false
		}
	}
	return true
}

func isIdentifier(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return s != ""
}

// isPlainWord reports whether w looks like a subcommand: lower-case letters,
// digits, - and _, starting with a letter.
func isPlainWord(w string) bool {
	for i, r := range w {
		if !(r >= 'a' && r <= 'z' || i > 0 && (r >= '0' && r <= '9' || r == '-' || r == '_')) {
			return false
		}
	}
	return w != ""
}

// Prefixes suggests the command prefixes an "always allow" rule would hold
// for line: one per simple command, the narrowest that names what it does
// (its key: "git status" for "git --no-pager status", "python3 -m pytest").
// It returns nil when no prefix rule should allow the line: it is complex,
// redirects to files, sets variables, or one of its commands is a shell,
// interpreter, version control or build driver without a subcommand, or
// a subcommand that runs arbitrary programs (npm exec, go run).
func Prefixes(line string) []string {
	c := ParseCommand(line)
	if c.Complex != "" || c.Redirection || len(c.Calls) == 0 {
		return nil
	}
	var out []string
	for _, call := range c.Calls {
		k := key(call)
		if k == nil || len(k) == 1 && neverAlone[baseName(k[0])] {
			return nil
		}
		prefix := strings.Join(k, " ")
		if neverOffered[baseName(k[0])+" "+strings.Join(k[1:], " ")] {
			return nil
		}
		if !slices.Contains(out, prefix) {
			out = append(out, prefix)
		}
	}
	return out
}

// prefixMatches reports whether the words of prefix begin call, as written
// or as its key.
func prefixMatches(call Call, prefix string) bool {
	want := strings.Fields(prefix)
	if len(want) == 0 {
		return false
	}
	ws := append(slices.Clone(call.Assigns), call.Words...)
	if len(want) <= len(ws) && !slices.ContainsFunc(ws[:len(want)], func(w Word) bool { return !w.Static }) &&
		slices.Equal(want, texts(ws[:len(want)])) {
		return true
	}
	k := key(call)
	return len(want) <= len(k) && slices.Equal(want, k[:len(want)])
}
