package policy

import (
	"path/filepath"
	"strings"
)

// secretNames are file names (lower case, path.Match patterns) that commonly
// hold secrets: environment files, private keys and credential stores.
var secretNames = []string{
	".env", ".env.*", "*.env",
	"*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
	"id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"credentials", "credentials.*", "*credentials.json", "service-account*.json",
	".netrc", "_netrc", ".git-credentials", ".pgpass", ".htpasswd", ".pypirc", ".npmrc",
	"secrets.json", "secrets.yaml", "secrets.yml", "secrets.toml", "*.tfvars",
}

// notSecret are the examples and public halves that secret-looking names
// often have beside them.
var notSecret = []string{"*.example", "*.sample", "*.template", "*.dist", "*.pub"}

// IsSecret reports whether the file at path looks like it holds secrets by
// its name: .env files, private keys (*.pem, id_rsa…), credential files.
// Examples (.env.example) and public keys (*.pub) do not.
func IsSecret(p string) bool {
	name := strings.ToLower(filepath.Base(p))
	if notSecretSet.match(name) {
		return false
	}
	return secretSet.match(name)
}

// The patterns above, sorted for speed: searches check every file.
var secretSet, notSecretSet = newNameSet(secretNames), newNameSet(notSecret)
