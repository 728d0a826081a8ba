package tools

import (
	"fmt"
	"slices"
	"strings"
)

// nearest finds the lines of text most like old, the old_string the model
// gave that does not match: an indentation or white-space difference first,
// else the span of len(old's lines) lines whose lines look most alike. It
// returns a note for the model that quotes them with their line numbers, or
// "" when nothing comes close.
func nearest(text, old string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	want := strings.Split(strings.TrimRight(old, "\n"), "\n")
	if len(want) == 0 || len(lines) == 0 {
		return ""
	}
	// The same text with other white space.
	squash := func(ls []string) string {
		var parts []string
		for _, l := range ls {
			parts = append(parts, strings.Fields(l)...)
		}
		return strings.Join(parts, " ")
	}
	target := squash(want)
	if target == "" {
		return ""
	}
	for i := 0; i+len(want) <= len(lines); i++ {
		if squash(lines[i:i+len(want)]) == target {
			return quoteLines("The text is there with other white space (indentation, tabs or line ends) at", lines, i, len(want))
		}
	}
	// Else the span whose lines are most alike, found from its first line:
	// score the best candidates for the first line only.
	first := slices.IndexFunc(want, func(l string) bool { return strings.TrimSpace(l) != "" })
	if first < 0 {
		return ""
	}
	wantGrams := make([]map[string]int, len(want))
	for i, l := range want {
		wantGrams[i] = bigrams(l)
	}
	type cand struct {
		start int
		score float64
	}
	var cands []cand
	for i, l := range lines {
		if s := dice(wantGrams[first], bigrams(l)); s >= 0.5 && i-first >= 0 {
			cands = append(cands, cand{i - first, s})
		}
	}
	slices.SortStableFunc(cands, func(a, b cand) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	best, bestScore := -1, 0.0
	for _, c := range cands[:min(len(cands), 20)] {
		n := min(len(want), len(lines)-c.start)
		total := 0.0
		for j := range n {
			total += dice(wantGrams[j], bigrams(lines[c.start+j]))
		}
		if score := total / float64(len(want)); score > bestScore {
			best, bestScore = c.start, score
		}
	}
	if best < 0 || bestScore < 0.5 {
		return ""
	}
	return quoteLines("The most similar text is at", lines, best, min(len(want), len(lines)-best))
}

// quoteLines quotes n lines from start, numbered from 1.
func quoteLines(intro string, lines []string, start, n int) string {
	var b strings.Builder
	if n == 1 {
		fmt.Fprintf(&b, "%s line %d:\n", intro, start+1)
	} else {
		fmt.Fprintf(&b, "%s lines %d-%d:\n", intro, start+1, start+n)
	}
	for i := start; i < start+n; i++ {
		fmt.Fprintf(&b, "%6d\t%s\n", i+1, truncateUTF8(lines[i], maxMatchLine))
	}
	return b.String()
}

// bigrams counts the character pairs of a line without its indentation.
func bigrams(s string) map[string]int {
	s = strings.TrimSpace(s)
	m := make(map[string]int)
	r := []rune(s)
	for i := 0; i+1 < len(r); i++ {
		m[string(r[i:i+2])]++
	}
	return m
}

// dice is the Sørensen–Dice similarity of two bigram counts: 1 for the same
// line, 0 for lines with no pair in common.
func dice(a, b map[string]int) float64 {
	na, nb := 0, 0
	for _, n := range a {
		na += n
	}
	for _, n := range b {
		nb += n
	}
	if na+nb == 0 {
		return 0
	}
	common := 0
	for g, n := range a {
		common += min(n, b[g])
	}
	return 2 * float64(common) / float64(na+nb)
}
