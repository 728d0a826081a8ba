package policy

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestSecretVar(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		want        bool
	}{
		// The list, and the usual suspects.
		{"DATABASE_URL", "postgres://u:p@h/db", true},
		{"PGPASSWORD", "x", true},
		{"MYSQL_PWD", "x", true},
		{"SECRET_KEY_BASE", "x", true},
		{"AWS_ACCESS_KEY_ID", "AKIA0000000000000000", true},
		{"AWS_SECRET_ACCESS_KEY", "x", true},
		{"AWS_SESSION_TOKEN", "x", true},
		{"NPM_CONFIG__AUTHTOKEN", "x", true},
		{"npm_config__authToken", "x", true},
		{"NPM_CONFIG__AUTH", "x", true},
		{"AZURE_STORAGE_CONNECTION_STRING", "x", true},
		{"SLACK_WEBHOOK_URL", "https://hooks.slack.com/services/x", true},
		{"GEMINI_API_KEY", "x", true},
		{"GITHUB_TOKEN", "x", true},
		{"GH_TOKEN_RO", "x", true},
		{"SENTRY_DSN", "https://k@o.ingest.sentry.io/1", true},
		{"SMTP_PASS", "x", true},
		{"GPG_PASSPHRASE", "x", true},
		{"GOOGLE_APPLICATION_CREDENTIALS", "/home/u/sa.json", true},
		{"DOCKER_AUTH_CONFIG", "{}", true},
		{"TEST_DATABASE_URL", "x", true},
		{"token", "x", true},
		{"PASSWORD_FILE", "x", true},
		// By value, whatever the name.
		{"MY_DB", "mysql://root:hunter22@localhost/app", true},
		{"REDIS", "redis://:hunter22@localhost:6379", true},
		{"SOMETHING", "ghp_" + "0123456789abcdefghijABCDEFGHIJ0123", true},
		{"SOMETHING", "xoxb-1234567890-abcdef", true},
		{"SOMETHING", "-----BEGIN OPENSSH PRIVATE KEY-----\nabc", true},
		// What builds need, and names that only look alike.
		{"PATH", "/usr/bin", false},
		{"HOME", "/home/u", false},
		{"GOPATH", "/home/u/go", false},
		{"GOFLAGS", "-mod=mod", false},
		{"GOPROXY", "https://u:p@proxy.corp,direct", false},
		{"HTTPS_PROXY", "http://u:p@proxy:3128", false},
		{"https_proxy", "http://u:p@proxy:3128", false},
		{"SSH_AUTH_SOCK", "/run/user/1000/ssh-agent", false},
		{"GIT_ASKPASS", "/usr/bin/ksshaskpass", false},
		{"PWD", "/home/u/src", false},
		{"OLDPWD", "/home/u", false},
		{"KEYBOARD", "us", false},
		{"TOKENIZERS_PARALLELISM", "false", false},
		{"TOKENIZER_PATH", "x", false},
		{"BYPASS_CACHE", "1", false},
		{"API_URL", "https://api.example.com:8443/v1@x", false},
		{"KUBECONFIG", "/home/u/.kube/config", false},
	}
	for _, tt := range tests {
		if got := SecretVar(tt.name, tt.value); got != tt.want {
			t.Errorf("SecretVar(%q, %q) = %v, want %v", tt.name, tt.value, got, tt.want)
		}
	}
}

func TestSecretValues(t *testing.T) {
	t.Parallel()
	got := SecretValues([]string{
		"PATH=/usr/bin",
		"GITHUB_TOKEN=tok123456",
		"EMPTY_TOKEN=",
		"DATABASE_URL=postgres://app:s3cr%2Ft@db/app",
		"HTTPS_PROXY=http://me:proxypass@proxy:3128",
		"GOPROXY=https://a:one@p1,https://b:two@p2,direct",
	})
	want := []string{"tok123456", "postgres://app:s3cr%2Ft@db/app", "s3cr%2Ft", "s3cr/t", "proxypass", "one", "two"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SecretValues (-want +got):\n%s", diff)
	}
}
