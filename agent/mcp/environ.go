package mcp

import (
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent/policy"
)

// secretVar reports whether the variable name=value holds a secret: by the
// one filter shell commands and traces use (policy.SecretVar), or because
// its value holds one of secrets.
func secretVar(name, value string, secrets []string) bool {
	return policy.SecretVar(name, value) ||
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
