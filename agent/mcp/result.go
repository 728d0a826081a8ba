package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentls/agentls/agent"
)

// MaxOutput caps what the model reads of one call's result.
const MaxOutput = 64 << 10

// result turns what a server's tool returned into what the model reads:
// its text; its structured content as JSON, unless its text already says
// it (servers send both, the text for clients like this one); images,
// audio and resources named but not inlined; an error result as an error.
// At most MaxOutput bytes, with a note of what was cut.
func result(server, tool string, res *mcp.CallToolResult) agent.Result {
	var parts, texts []string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			texts = append(texts, t.Text)
		}
	}
	var structured any
	if res.StructuredContent != nil && !covered(res.StructuredContent, texts) {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			structured = res.StructuredContent
			parts = append(parts, "structured content: "+string(b))
		}
	}
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			if structured != nil && sameJSON(c.Text, structured) {
				continue
			}
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image (%s, %d bytes): not shown to the model]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio (%s, %d bytes): not given to the model]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[a link to the resource %s%s: not fetched]", c.URI, named(c.Name, c.MIMEType)))
		case *mcp.EmbeddedResource:
			if r := c.Resource; r != nil {
				size := len(r.Text) + len(r.Blob)
				parts = append(parts, fmt.Sprintf("[the resource %s%s, %d bytes: not inlined]", r.URI, named("", r.MIMEType), size))
			}
		default:
			parts = append(parts, fmt.Sprintf("[content of type %T: not shown]", c))
		}
	}
	out := strings.Join(parts, "\n")
	if strings.TrimSpace(out) == "" {
		out = "(the tool returned nothing)"
	}
	out = capOutput(out, MaxOutput)
	display := fmt.Sprintf("%s: %s", server, tool)
	if res.IsError {
		return agent.Result{Output: "the tool reported an error: " + out, IsError: true, Display: display + " failed"}
	}
	return agent.Result{Output: out, Display: display}
}

// named is " (name, type)", or as much of it as is known.
func named(name, mime string) string {
	var ps []string
	for _, p := range []string{name, mime} {
		if p != "" {
			ps = append(ps, p)
		}
	}
	if len(ps) == 0 {
		return ""
	}
	return " (" + strings.Join(ps, ", ") + ")"
}

// covered reports whether the text blocks of a result say all its
// structured content holds: one of them is it as JSON, or it is an object
// of strings that are text blocks.
func covered(structured any, texts []string) bool {
	for _, t := range texts {
		if sameJSON(t, structured) {
			return true
		}
	}
	m, ok := structured.(map[string]any)
	if !ok || len(m) == 0 {
		return false
	}
	for _, v := range m {
		s, ok := v.(string)
		if !ok || !slices.Contains(texts, s) {
			return false
		}
	}
	return true
}

// sameJSON reports whether text is v as JSON.
func sameJSON(text string, v any) bool {
	var t any
	if json.Unmarshal([]byte(text), &t) != nil {
		return false
	}
	b, err := json.Marshal(v)
	if err != nil {
		return false
	}
	var w any
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	return reflect.DeepEqual(t, w)
}

// capOutput keeps the first max bytes of s, cut at a character boundary,
// and says how much was cut.
func capOutput(s string, limit int) string {
	if len(s) <= limit {
		return s
	}
	cut := limit
	for cut > 0 && cut > limit-utf8.UTFMax && !utf8.RuneStart(s[cut]) {
		cut--
	}
	head := s[:cut]
	return fmt.Sprintf("%s\n[… %d of %d bytes cut: the result is longer than agentls passes on]", head, len(s)-len(head), len(s))
}

// compactArgs is a call's arguments as compact JSON, checked to be an
// object ("{}" for none).
func compactArgs(raw json.RawMessage) (json.RawMessage, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return json.RawMessage("{}"), nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("the arguments must be a JSON object: %v", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
