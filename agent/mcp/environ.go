package mcp

import (
	"maps"
	"os"
	"slices"
	"strings"
)

// Variables that hold secrets, by their name: the shell's filter.
var (
	secretSuffixes = []string{"_KEY", "_KEYS", "_TOKEN", "_TOKENS", "_SECRET", "_SECRETS", "_PASSWORD", "_PASSWD", "_CREDENTIALS"}
	secretNames    = []string{"KEY", "TOKEN", "SECRET", "PASSWORD", "GOOGLE_APPLICATION_CREDENTIALS"}
)

// secretVar reports whether the variable name=value holds a secret: by its
// name, or because its value holds one of secrets.
func secretVar(name, value string, secrets []string) bool {
	up := strings.ToUpper(name)
	return slices.Contains(secretNames, up) ||
		slices.ContainsFunc(secretSuffixes, func(s string) bool { return strings.HasSuffix(up, s) }) ||
		slices.ContainsFunc(secrets, func(s string) bool { return len(s) >= 8 && strings.Contains(value, s) })
}

// environ is the environment of a server's command: base ("NAME=value"
// entries; nil: the process's own) less the variables that hold secrets,
// then the server's env, whose values may name variables of base ($VAR,
// ${VAR}): a secret reaches a server only when its settings pass it.
func environ(base, secrets []string, env map[string]string) []string {
	if base == nil {
		base = os.Environ()
	}
	out := make([]string, 0, len(base)+len(env))
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		if _, set := env[name]; set || secretVar(name, value, secrets) {
			continue
		}
		out = append(out, kv)
	}
	for _, name := range slices.Sorted(maps.Keys(env)) {
		out = append(out, name+"="+expand(env[name], base))
	}
	return out
}

// expand replaces $VAR and ${VAR} in s with the values of base.
func expand(s string, base []string) string {
	if base == nil {
		base = os.Environ()
	}
	return os.Expand(s, func(name string) string {
		for i := len(base) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(base[i], "="); ok && k == name {
				return v
			}
		}
		return ""
	})
}
