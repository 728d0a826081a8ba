package tools

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// placeholderLine matches a line that stands for code left out, as models
// write when they mean "the rest stays as it is": "// ... rest of the file
// unchanged", "# existing code ...", "/* ... */", "...", "<!-- unchanged -->".
var placeholderLine = regexp.MustCompile(`(?i)^\s*(?:(?://+|#+|--|;+|/\*+|\*|<!--|\{/\*)\s*)?(?:` +
	`\.{3}|…|` +
	`(?:\.{3}\s*|…\s*)?(?:\(|\[)?\s*(?:the\s+)?(?:rest|remainder)\s+of\s+(?:the\s+)?(?:file|code|function|class|method|implementation|module|component|content)s?\b.*|` +
	`(?:\.{3}\s*|…\s*)?(?:\(|\[)?\s*(?:existing|unchanged|remaining|previous|other|same)\s+(?:code|content|implementation|methods|functions|imports|lines)\b.*|` +
	`(?:\.{3}\s*|…\s*)?(?:\(|\[)?\s*(?:code|content|implementation)\s+(?:unchanged|omitted|remains\s+the\s+same|as\s+before)\b.*` +
	`)\s*(?:\*+/|-->|\*/\}|\)|\])?\s*$`)

// bareEllipsisOK are the kinds of files where a line of "..." is real
// content: Python stubs, prose.
var bareEllipsisOK = []string{".py", ".pyi", ".md", ".markdown", ".txt", ".rst", ".adoc"}

// placeholders returns the lines of text, new content for the file at path,
// that look like stand-ins for omitted code and are not in old: a rewrite
// with them would delete what they stand for.
func placeholders(path, text, old string) []string {
	ellipsisOK := slices.Contains(bareEllipsisOK, strings.ToLower(filepath.Ext(path)))
	var found []string
	for line := range strings.Lines(text) {
		line = strings.TrimSpace(line)
		if !placeholderLine.MatchString(line) || strings.Contains(old, line) {
			continue
		}
		if ellipsisOK && (line == "..." || line == "…") {
			continue
		}
		found = append(found, line)
	}
	return found
}
