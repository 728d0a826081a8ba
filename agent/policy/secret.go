package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// secretNames are file names (lower case, path.Match patterns) that commonly
// hold secrets: environment files, private keys, credential stores, state
// files with secrets in them.
var secretNames = []string{
	".env", ".env.*", "*.env", ".envrc", ".dev.vars",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.p8", "*.jks", "*.keystore",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"credentials*", "*credentials.json", "service-account*.json", "local.settings.json",
	".netrc", "_netrc", ".git-credentials", ".pgpass", ".my.cnf", ".htpasswd", ".pypirc", ".npmrc", ".yarnrc.yml",
	".vault-token", ".s3cfg",
	"secrets.json", "secrets.yaml", "secrets.yml", "secrets.toml", "*.tfvars", "terraform.tfstate*", "*.tfstate",
}

// secretPaths are the last two elements of paths whose name alone says
// nothing: the Docker and Kubernetes client configurations.
var secretPaths = []string{".docker/config.json", ".kube/config"}

// notSecret are the examples and public halves that secret-looking names
// often have beside them.
var notSecret = []string{"*.example", "*.sample", "*.template", "*.dist", "*.pub"}

// sourceExts are the extensions of program source and documentation: a file
// named credentials.go or id_token.py is code about secrets, not a secret.
var sourceExts = []string{
	".go", ".py", ".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".rs", ".java", ".kt", ".rb", ".php",
	".c", ".h", ".cc", ".cpp", ".hpp", ".cs", ".swift", ".scala", ".lua", ".ex", ".exs", ".md", ".rst",
}

// IsSecret reports whether the file at p looks like it holds secrets by
// its name: .env files, private keys (*.pem, id_rsa, id_work…), credential
// files, Terraform state, .docker/config.json. Examples (.env.example),
// public keys (*.pub) and source files (credentials.go) do not.
//
// It judges a name: tools call it on every path a path leads through (see
// agent.FS Links), so that a symlink with an innocent name does not hide
// the file it leads to.
func IsSecret(p string) bool {
	name := strings.ToLower(filepath.Base(p))
	if notSecretSet.match(name) {
		return false
	}
	if slices.Contains(sourceExts, path.Ext(name)) {
		return false
	}
	if secretSet.match(name) {
		return true
	}
	// Private keys a user named (id_github, id_work): no extension.
	if strings.HasPrefix(name, "id_") && !strings.Contains(name, ".") {
		return true
	}
	for _, sp := range secretPaths {
		if path.Base(sp) == name { // spares most files the path work below
			last2 := strings.ToLower(filepath.ToSlash(filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))))
			return slices.Contains(secretPaths, last2)
		}
	}
	return false
}

// protectedDirs are folders no edit tool writes in and no context file
// imports from: the repository's history (hooks, config that runs
// commands), and agentls's own settings (a policy the agent could rewrite
// would be no policy).
var protectedDirs = []string{".git", ".agentls"}

// ProtectedDir returns the protected folder (".git" or ".agentls") that
// the path rel lies in, "" when none. rel is relative to its workspace
// folder; an absolute path outside the workspace is judged by all of its
// elements.
func ProtectedDir(rel string) string {
	for _, el := range strings.Split(filepath.ToSlash(rel), "/") {
		for _, d := range protectedDirs {
			if strings.EqualFold(el, d) {
				return d
			}
		}
	}
	return ""
}

// CheckImport tells why a context file (AGENTS.md, GEMINI.md) may not
// import the file named rel, or returns nil. Imports go into every run's
// instructions with no tool call and no approval, so they pass the checks
// of read_file and more: nothing in .git/ or .agentls/, and no
// secret-looking file unless a rule with a pathPattern and no toolName
// allows it. rel is workspace-relative (absolute outside the workspace);
// the caller calls it on every path the import leads through. A Policy
// with no engine has no rule that allows.
func (p Policy) CheckImport(rel string) error {
	if d := ProtectedDir(rel); d != "" {
		return fmt.Errorf("%s is inside %s/, which context files may not import", rel, d)
	}
	if IsSecret(rel) && (p.e == nil || !p.AllowsPath("", rel)) {
		return fmt.Errorf("%s looks like a file of secrets, which context files may not import; a policy rule with a pathPattern (and no toolName) can allow it", rel)
	}
	return nil
}

// The patterns above, sorted for speed: searches check every file.
var secretSet, notSecretSet = newNameSet(secretNames), newNameSet(notSecret)
