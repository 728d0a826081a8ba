package policy

import (
	"path"
	"strings"
)

// A nameSet matches file names against path.Match patterns. The patterns
// are sorted once into exact names, prefixes, suffixes and the rest, so that
// a name costs a map lookup and a few comparisons rather than a path.Match
// per pattern: searches check every file they read.
type nameSet struct {
	exact  map[string]bool
	affix  []affix  // "pre*", "*suf", "pre*suf", "*in*"
	others []string // patterns with ?, [ or \, matched by path.Match
}

// An affix is a pattern whose only metacharacters are stars at its ends, or
// one star inside.
type affix struct {
	pre, suf string
	in       string // "*in*": contains in
}

func newNameSet(patterns []string) *nameSet {
	s := &nameSet{exact: make(map[string]bool)}
	for _, p := range patterns {
		if strings.ContainsAny(p, `?[\`) {
			s.others = append(s.others, p)
			continue
		}
		switch n := strings.Count(p, "*"); {
		case n == 0:
			s.exact[p] = true
		case n == 1:
			pre, suf, _ := strings.Cut(p, "*")
			s.affix = append(s.affix, affix{pre: pre, suf: suf})
		case n == 2 && len(p) > 2 && p[0] == '*' && p[len(p)-1] == '*':
			s.affix = append(s.affix, affix{in: p[1 : len(p)-1]})
		default:
			s.others = append(s.others, p)
		}
	}
	return s
}

// match reports whether name (no "/" in it) matches one of the patterns.
func (s *nameSet) match(name string) bool {
	if s.exact[name] {
		return true
	}
	for _, a := range s.affix {
		if a.in != "" {
			if strings.Contains(name, a.in) {
				return true
			}
			continue
		}
		if len(name) >= len(a.pre)+len(a.suf) && strings.HasPrefix(name, a.pre) && strings.HasSuffix(name, a.suf) {
			return true
		}
	}
	for _, p := range s.others {
		if ok, _ := path.Match(p, name); ok {
			return true
		}
	}
	return false
}
