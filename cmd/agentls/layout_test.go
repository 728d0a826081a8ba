package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

const module = "github.com/agentls/agentls"

// A layoutRule forbids the packages under from depending on a package, at
// any depth.
type layoutRule struct {
	under  string // a package path relative to the module, and what is below it
	only   bool   // under names one package, not what is below it
	forbid func(dep string) bool
	why    string
}

func within(rel, dir string) bool { return rel == dir || strings.HasPrefix(rel, dir+"/") }

func project(dep string) (string, bool) {
	if dep == module {
		return "", true
	}
	return strings.CutPrefix(dep, module+"/")
}

func inProject(dirs ...string) func(string) bool {
	return func(dep string) bool {
		rel, ok := project(dep)
		if !ok {
			return false
		}
		for _, d := range dirs {
			if d == "" || within(rel, d) {
				return true
			}
		}
		return false
	}
}

func lspModules(dep string) bool { return strings.HasPrefix(dep, "go.lsp.dev/") }

func either(fs ...func(string) bool) func(string) bool {
	return func(dep string) bool {
		for _, f := range fs {
			if f(dep) {
				return true
			}
		}
		return false
	}
}

// The house's layout (DESIGN.md): cmd → lsp, acp → runner, contract →
// agent, workspace, edits; imports point down, the front ends stand side by
// side, and the harness knows nothing of LSP, not even through another
// package.
var layoutRules = []layoutRule{
	{"agent", false, either(lspModules, inProject("lsp", "acp", "cmd", "runner", "contract", "workspace", "edits/lspedit")),
		"the harness knows nothing of LSP, the editor's workspace, or the front ends"},
	{"workspace", false, inProject("agent", "lsp", "acp", "cmd", "runner", "contract"), "workspace is below the harness and the front ends"},
	{"edits", true, either(lspModules, inProject("")), "edits is pure text work: no LSP, nothing else of agentls"},
	{"edits/lspedit", false, func(dep string) bool {
		rel, ok := project(dep)
		return ok && rel != "edits"
	}, "the LSP side of edits builds on edits alone"},
	{"contract", false, inProject("lsp", "acp", "cmd", "runner", "workspace"), "the contract is types: front ends import it, not the reverse"},
	{"runner", false, inProject("lsp", "acp", "cmd"), "the run builder serves every front end"},
	{"lsp", false, inProject("acp", "cmd"), "front ends stand beside each other; nothing imports the command"},
	{"acp", false, inProject("lsp", "cmd"), "the ACP front end stands beside lsp; only the command imports it"},
	{"lsp/transport", false, inProject("agent", "runner", "contract", "workspace", "edits", "lsp/lsptest"), "the wire knows nothing of what it carries"},
}

// TestLayout checks the import rules on the whole dependency graph of every
// package, and that every package says what it is.
func TestLayout(t *testing.T) {
	t.Parallel()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedName | packages.NeedImports | packages.NeedDeps | packages.NeedFiles, Dir: "../.."}, "./...")
	if err != nil {
		t.Fatal(err)
	}
	if len(pkgs) < 10 {
		t.Fatalf("loaded only %d packages", len(pkgs))
	}
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		rel, _ := project(p.PkgPath)
		deps := map[string]bool{}
		var walk func(*packages.Package)
		walk = func(q *packages.Package) {
			for path, dep := range q.Imports {
				if !deps[path] {
					deps[path] = true
					walk(dep)
				}
			}
		}
		walk(p)
		for dep := range deps {
			if r, ok := project(dep); ok && within(r, "cmd") && !within(rel, "cmd") {
				t.Errorf("%s depends on %s: nothing imports a command", rel, dep)
			}
		}
		for _, rule := range layoutRules {
			if rel != rule.under && (rule.only || !within(rel, rule.under)) {
				continue
			}
			for dep := range deps {
				if rule.forbid(dep) {
					t.Errorf("%s depends on %s, directly or not: %s", rel, dep, rule.why)
				}
			}
		}
		checkPackageDoc(t, p)
	}
}

// checkPackageDoc checks that one file of p has a "// Package x" comment.
func checkPackageDoc(t *testing.T, p *packages.Package) {
	t.Helper()
	fset := token.NewFileSet()
	for _, f := range p.GoFiles {
		file, err := parser.ParseFile(fset, f, nil, parser.PackageClauseOnly|parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		if docSays(file) {
			return
		}
	}
	if len(p.GoFiles) > 0 {
		t.Errorf("%s (%s) has no package doc comment", p.PkgPath, filepath.Dir(p.GoFiles[0]))
	}
}

func docSays(f *ast.File) bool {
	if f.Doc == nil {
		return false
	}
	text := f.Doc.Text()
	return strings.HasPrefix(text, "Package "+f.Name.Name+" ") || (f.Name.Name == "main" && text != "")
}
