package trace

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent/policy"
)

// Redacted replaces secret values in a trace.
const Redacted = "[REDACTED]"

// minSecret is the length below which a value is not scrubbed: short
// values ("1", "true") occur everywhere in code and would wreck the trace.
const minSecret = 6

// SecretValues returns the secrets of environ ("NAME=value" entries), for
// [Options].Secrets: the values of the variables that hold secrets and the
// passwords of URLs, by the filter shell commands' environments pass
// through too (policy.SecretVar).
func SecretValues(environ []string) []string { return policy.SecretValues(environ) }

// A redactor replaces secret values in encoded records.
type redactor struct {
	r *strings.Replacer // nil: nothing to scrub
}

func newRedactor(secrets []string) *redactor {
	var olds []string
	for _, s := range secrets {
		if len(s) < minSecret {
			continue
		}
		olds = append(olds, s)
		// In a JSON string the value may appear escaped ("a\"b", "\u003c").
		if b, err := json.Marshal(s); err == nil {
			if esc := string(b[1 : len(b)-1]); esc != s {
				olds = append(olds, esc)
			}
		}
	}
	if len(olds) == 0 {
		return &redactor{}
	}
	// The longest first, so that a secret holding another is scrubbed whole.
	slices.SortFunc(olds, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	olds = slices.Compact(olds)
	var pairs []string
	for _, o := range olds {
		pairs = append(pairs, o, Redacted)
	}
	return &redactor{r: strings.NewReplacer(pairs...)}
}

// bytes scrubs an encoded record. A secret that overlapped the JSON syntax
// itself could leave invalid JSON: then the record is replaced by an error
// record rather than written half-scrubbed.
func (rd *redactor) bytes(b []byte) []byte {
	if rd.r == nil {
		return b
	}
	s := rd.r.Replace(string(b))
	if len(s) == len(b) && s == string(b) {
		return b
	}
	if !json.Valid([]byte(s)) {
		out, _ := json.Marshal(Record{Type: TypeError, Error: "a record was left out: it held a secret that could not be scrubbed"})
		return out
	}
	return []byte(s)
}
