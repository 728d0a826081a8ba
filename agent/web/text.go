package web

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// Text converts an HTML page to plain text a model reads well: the title,
// headings marked with #, list items with -, links as [text](url) (http
// and https ones, made absolute against base), preformatted text as it is,
// table cells separated by |, and nothing of scripts, styles, forms' hidden
// parts or embedded objects. The parser is golang.org/x/net/html, which
// reads any HTML as a browser would.
func Text(page string, base *url.URL) string {
	doc, err := html.Parse(strings.NewReader(page))
	if err != nil {
		return "" // html.Parse fails only when its reader does
	}
	t := &textWriter{base: base}
	if title := findTitle(doc); title != "" {
		t.b.WriteString("Title: " + title + "\n\n")
	}
	t.node(doc)
	return strings.TrimSpace(t.b.String()) + "\n"
}

// skipped are elements whose content is no text of the page.
var skipped = map[atom.Atom]bool{
	atom.Head: true, atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true, atom.Embed: true,
	atom.Canvas: true, atom.Select: true, atom.Button: true, atom.Input: true, atom.Textarea: true,
}

// blocks are elements that start and end a line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Header: true,
	atom.Footer: true, atom.Main: true, atom.Aside: true, atom.Nav: true, atom.Ul: true, atom.Ol: true,
	atom.Li: true, atom.Pre: true, atom.Blockquote: true, atom.Table: true, atom.Tr: true, atom.Hr: true,
	atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Figure: true, atom.Figcaption: true, atom.Form: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
	atom.Details: true, atom.Summary: true, atom.Address: true, atom.Fieldset: true,
}

var headings = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

type textWriter struct {
	b    strings.Builder
	base *url.URL
	pre  int  // depth inside <pre>
	sp   bool // a space is pending between words
}

// newline ends the current line, if it has text.
func (t *textWriter) newline() {
	t.sp = false
	if !t.atLineStart() {
		t.b.WriteString("\n")
	}
}

// paragraph ends the current line and leaves one blank line, except at the
// start.
func (t *textWriter) paragraph() {
	t.newline()
	if s := t.b.String(); s != "" && !strings.HasSuffix(s, "\n\n") {
		t.b.WriteString("\n")
	}
}

// paragraphs are blocks set apart by blank lines.
var paragraphs = map[atom.Atom]bool{
	atom.P: true, atom.Pre: true, atom.Table: true, atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Blockquote: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

func (t *textWriter) atLineStart() bool {
	s := t.b.String()
	return s == "" || strings.HasSuffix(s, "\n")
}

// text writes a run of text, its white space collapsed outside <pre>.
func (t *textWriter) text(s string) {
	if t.pre > 0 {
		t.b.WriteString(s)
		return
	}
	words := strings.Fields(s)
	if len(words) == 0 {
		t.sp = t.sp || s != ""
		return
	}
	if (t.sp || startsSpace(s)) && !t.atLineStart() {
		t.b.WriteString(" ")
	}
	t.b.WriteString(strings.Join(words, " "))
	t.sp = endsSpace(s)
}

func startsSpace(s string) bool { return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[0])) }
func endsSpace(s string) bool   { return s != "" && strings.ContainsRune(" \t\n\r\f", rune(s[len(s)-1])) }

func (t *textWriter) node(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		t.text(n.Data)
		return
	case html.ElementNode:
		t.element(n)
		return
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		t.node(c)
	}
}

func (t *textWriter) element(n *html.Node) {
	a := n.DataAtom
	if skipped[a] || hidden(n) {
		return
	}
	switch a {
	case atom.Br:
		t.b.WriteString("\n")
		t.sp = false
		return
	case atom.Hr:
		t.newline()
		t.b.WriteString("---\n")
		return
	case atom.Img:
		if alt := strings.TrimSpace(attr(n, "alt")); alt != "" {
			t.text(" [image: " + alt + "] ")
		}
		return
	case atom.A:
		if href := t.link(attr(n, "href")); href != "" {
			inner := &textWriter{base: t.base}
			for c := n.FirstChild; c != nil; c = c.NextSibling {
				inner.node(c)
			}
			label := strings.Join(strings.Fields(inner.b.String()), " ")
			if label == "" {
				return
			}
			t.text("[" + label + "](" + href + ")")
			return
		}
	case atom.Td, atom.Th:
		if !t.atLineStart() {
			t.b.WriteString(" | ")
			t.sp = false
		}
	}
	block, para := blocks[a], paragraphs[a]
	switch {
	case para:
		t.paragraph()
	case block:
		t.newline()
	}
	if level := headings[a]; level > 0 {
		t.b.WriteString(strings.Repeat("#", level) + " ")
	}
	if a == atom.Li {
		t.b.WriteString("- ")
	}
	if a == atom.Pre {
		t.pre++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		t.node(c)
	}
	if a == atom.Pre {
		t.pre--
	}
	switch {
	case para:
		t.paragraph()
	case block:
		t.newline()
	}
}

// link makes href absolute; "" for links that go nowhere a reader could
// follow (javascript:, mailto:, fragments of the page itself).
func (t *textWriter) link(href string) string {
	href = strings.TrimSpace(href)
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if t.base != nil {
		u = t.base.ResolveReference(u)
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return u.String()
}

// hidden reports elements the page hides from its readers.
func hidden(n *html.Node) bool {
	for _, a := range n.Attr {
		switch {
		case a.Key == "hidden", a.Key == "aria-hidden" && a.Val == "true":
			return true
		case a.Key == "type" && n.DataAtom == atom.Input && a.Val == "hidden":
			return true
		case a.Key == "style":
			s := strings.ReplaceAll(strings.ToLower(a.Val), " ", "")
			if strings.Contains(s, "display:none") || strings.Contains(s, "visibility:hidden") {
				return true
			}
		}
	}
	return false
}

func attr(n *html.Node, key string) string {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

func findTitle(n *html.Node) string {
	if n.Type == html.ElementNode && n.DataAtom == atom.Title {
		var b strings.Builder
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.TextNode {
				b.WriteString(c.Data)
			}
		}
		return strings.Join(strings.Fields(b.String()), " ")
	}
	if n.Type == html.ElementNode && n.DataAtom == atom.Body {
		return ""
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if s := findTitle(c); s != "" {
			return s
		}
	}
	return ""
}
