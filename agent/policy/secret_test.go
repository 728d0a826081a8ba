package policy

import (
	"strings"
	"testing"

	"github.com/agentls/agentls/agent"
)

// The secret-file list of issue 13, and the code and public halves that
// only look alike.
func TestIsSecretWidened(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		".envrc": true, "web/.dev.vars": true, ".docker/config.json": true, "/home/u/.kube/config": true,
		"terraform.tfstate": true, "infra/terraform.tfstate.backup": true, "x.tfstate": true, ".my.cnf": true,
		".pgpass": true, ".yarnrc.yml": true, ".vault-token": true, "api/local.settings.json": true,
		"tls/server.pem": true, "tls.key": true, "id_rsa": true, "id_github": true, "id_ed25519_sk": true,
		".netrc": true, "credentials": true, "credentials.csv": true, "credentials-prod.ini": true, "cert.p8": true,
		"config.json": false, "kube/config": false, "docker/config.json": false, "id_rsa.pub": false,
		"id_generator.go": false, "id_test.py": false, "credentials.go": false, "credentials_test.go": false,
		"auth/credentials.ts": false, ".env.example": false, "terraform.tf": false, "docs/secrets.md": false,
	} {
		if got := IsSecret(p); got != want {
			t.Errorf("IsSecret(%q) = %v, want %v", p, got, want)
		}
	}
}

func TestProtectedDir(t *testing.T) {
	t.Parallel()
	for rel, want := range map[string]string{
		".git/config": ".git", "sub/.git/hooks/pre-commit": ".git", ".GIT/config": ".git", ".agentls/policy.toml": ".agentls",
		".git": ".git", "main.go": "", ".github/workflows/ci.yml": "", "git/config": "", ".gitignore": "",
	} {
		if got := ProtectedDir(rel); got != want {
			t.Errorf("ProtectedDir(%q) = %q, want %q", rel, got, want)
		}
	}
}

// A context file's import passes the protected folders and the secret
// list; only a rule with a pathPattern and no toolName lets a secret in.
func TestCheckImport(t *testing.T) {
	t.Parallel()
	e := New("")
	allow := func(toolName []string, pattern string) {
		r := &Rule{PathPattern: []string{pattern}, ToolName: toolName, Decision: agent.VerdictAllow, Source: SourceUser, ID: pattern}
		if err := r.compile(); err != nil {
			t.Fatal(err)
		}
		e.files = append(e.files, &ruleFile{source: SourceUser, rules: []*Rule{r}})
	}
	allow([]string{"read_file"}, ".env")
	allow(nil, "shared.pem")
	p := e.WithMode(ModeDefault)
	for rel, want := range map[string]string{
		"docs/style.md":   "",
		".git/config":     "inside .git/",
		".agentls/x.md":   "inside .agentls/",
		".env":            "looks like a file of secrets",
		"keys/shared.pem": "",
		"keys/other.pem":  "looks like a file of secrets",
	} {
		err := p.CheckImport(rel)
		if (err == nil) != (want == "") || err != nil && !strings.Contains(err.Error(), want) {
			t.Errorf("CheckImport(%q) = %v, want %q", rel, err, want)
		}
	}
}
