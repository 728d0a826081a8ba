package mcp

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/agentls/agentls/agent"
)

// Question is what a person is asked to allow for a call of an MCP tool:
// the server, the tool and the arguments. Everything in it that a server
// or the model chose is escaped to ASCII (names quoted, the arguments as
// JSON with \u escapes), so that no control or invisible character can
// hide what runs. Arguments longer than maxArgs bytes (0: no limit) are
// cut, and the question says so.
func Question(ap agent.Approval, maxArgs int) string {
	args := asciiJSON(string(ap.Args))
	if args == "" {
		args = "{}"
	}
	if maxArgs > 0 && len(args) > maxArgs {
		args = fmt.Sprintf("%s… (%d more bytes not shown)", args[:maxArgs], len(args)-maxArgs)
	}
	return fmt.Sprintf("Allow MCP server %s to run its tool %s with %s?",
		strconv.QuoteToASCII(ap.Server), strconv.QuoteToASCII(ap.ServerTool), args)
}

// asciiJSON is JSON text with every character outside printable ASCII
// written as a \u escape: the same JSON, shown without anything hidden.
func asciiJSON(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r >= 0x20 && r < 0x7f:
			b.WriteRune(r)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(&b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
	}
	return b.String()
}
