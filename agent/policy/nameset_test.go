package policy

import (
	"path"
	"testing"
)

var nameSetSeeds = []string{
	".env", ".env.local", "a.env", ".envrc", "id_rsa", "id_rsa.pub", "credentials", "credentials.json",
	"my-credentials.json", "service-account-1.json", "service-account.json", "x.pem", "pem", "*", "",
	"terraform.tfstate.backup", "secrets.yaml", "a.tfvars", "main.go", "envy", "e", "a*b", "ab", "aab",
}

// naiveMatch is path.Match over every pattern, what a nameSet stands for.
func naiveMatch(patterns []string, name string) bool {
	for _, p := range patterns {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}

func TestNameSet(t *testing.T) {
	t.Parallel()
	patterns := append(append(append([]string{}, secretNames...), notSecret...), "*in*", "a?c", "[x]y", "*a*b")
	s := newNameSet(patterns)
	for _, name := range nameSetSeeds {
		if got, want := s.match(name), naiveMatch(patterns, name); got != want {
			t.Errorf("%q: %v, want %v", name, got, want)
		}
	}
}

func FuzzNameSet(f *testing.F) {
	for _, name := range nameSetSeeds {
		f.Add("*.env", name)
		f.Add("pre*suf", name)
		f.Add("*in*", name)
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		if _, err := path.Match(pattern, ""); err != nil || len(name) > 0 && path.Base(name) != name {
			return
		}
		patterns := []string{pattern}
		if got, want := newNameSet(patterns).match(name), naiveMatch(patterns, name); got != want {
			t.Errorf("pattern %q, name %q: %v, want %v", pattern, name, got, want)
		}
	})
}
