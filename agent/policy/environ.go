package policy

import (
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// The one filter of environment variables that hold secrets: shell
// commands never see them, and traces scrub their values. A variable holds
// a secret by its name (upper-cased):
var (
	// whole names;
	secretVarNames = []string{
		"KEY", "TOKEN", "SECRET", "PASSWORD", "DATABASE_URL", "AWS_ACCESS_KEY_ID",
		"DOCKER_AUTH_CONFIG", "GOOGLE_APPLICATION_CREDENTIALS",
	}
	// the last part;
	secretVarSuffixes = []string{
		"_KEY", "_KEYS", "_ACCESS_KEY_ID", "_AUTH", "_CONNECTION_STRING", "_DATABASE_URL", "_DB_URL", "_COOKIE",
	}
	// any word between underscores (PWD only when it is not the whole name);
	secretVarWords = []string{
		"TOKEN", "TOKENS", "SECRET", "SECRETS", "CREDENTIAL", "CREDENTIALS", "PASSPHRASE", "PASS", "PWD",
		"APIKEY", "AUTHTOKEN", "DSN", "WEBHOOK",
	}
	// any part of it.
	secretVarParts = []string{"PASSWORD", "PASSWD", "SECRET", "AUTHTOKEN"}
)

// secretValue matches values that are credentials whatever their
// variable's name: well-known token shapes and private keys.
var secretValue = regexp.MustCompile(`^(gh[pousr]_[A-Za-z0-9]{30,}|github_pat_\w{30,}|glpat-[\w-]{20,}|xox[abposr]-[\w-]{10,}|` +
	`AKIA[0-9A-Z]{16}|AIza[\w-]{35}|sk-[\w-]{20,}|npm_[A-Za-z0-9]{30,})$|-----BEGIN [A-Z ]*PRIVATE KEY-----`)

// urlPassword finds the password of a URL with credentials in it
// (postgres://user:password@host/db), in a value that may hold several.
var urlPassword = regexp.MustCompile(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@]*:([^/\s@]+)@`)

// SecretVar reports whether the environment variable name=value holds a
// secret that no shell command may see and no trace may keep:
//
//   - by its name: KEY, TOKEN, SECRET, PASSWORD, DATABASE_URL,
//     AWS_ACCESS_KEY_ID, GOOGLE_APPLICATION_CREDENTIALS, DOCKER_AUTH_CONFIG;
//     names ending in _KEY, _KEYS, _ACCESS_KEY_ID, _AUTH,
//     _CONNECTION_STRING, _DATABASE_URL, _DB_URL, _COOKIE; names with a word
//     TOKEN, SECRET, CREDENTIALS, PASSPHRASE, PASS, PWD, APIKEY, AUTHTOKEN,
//     DSN, WEBHOOK (and plurals); names containing PASSWORD, PASSWD, SECRET,
//     AUTHTOKEN (PGPASSWORD, MYSQL_PWD, SECRET_KEY_BASE,
//     NPM_CONFIG__AUTHTOKEN, SLACK_WEBHOOK_URL…);
//   - by its value: a URL with a password in it, a GitHub, GitLab, Slack,
//     AWS, Google, OpenAI or npm token, a private key.
//
// Proxy settings (*_PROXY, GOPROXY) are kept even with a password in their
// URL: without them builds cannot reach the network. So are the variables
// builds need and that hold no secret themselves: PATH, HOME, GOPATH,
// GOFLAGS, SSH_AUTH_SOCK (a socket, not a key)….
func SecretVar(name, value string) bool {
	up := strings.ToUpper(name)
	if slices.Contains(secretVarNames, up) ||
		slices.ContainsFunc(secretVarSuffixes, func(s string) bool { return strings.HasSuffix(up, s) }) ||
		slices.ContainsFunc(secretVarParts, func(s string) bool { return strings.Contains(up, s) }) {
		return true
	}
	words := strings.Split(up, "_")
	if len(words) > 1 && slices.ContainsFunc(words, func(w string) bool { return slices.Contains(secretVarWords, w) }) {
		return true
	}
	if slices.Contains(secretVarWords, up) && up != "PWD" {
		return true
	}
	if strings.HasSuffix(up, "PROXY") {
		return false
	}
	return secretValue.MatchString(value) || urlPassword.MatchString(value)
}

// SecretValues returns the secrets that environ ("NAME=value" entries)
// holds, for a trace to scrub: the value of every variable SecretVar picks
// out, and the password of every URL in a variable (a proxy's too), as it
// is written and decoded.
func SecretValues(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || value == "" {
			continue
		}
		if SecretVar(name, value) {
			out = append(out, value)
		}
		for _, m := range urlPassword.FindAllStringSubmatch(value, -1) {
			out = append(out, m[1])
			if dec, err := url.PathUnescape(m[1]); err == nil && dec != m[1] {
				out = append(out, dec)
			}
		}
	}
	return out
}
