package mcp

import (
	"fmt"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// Question is what a person is asked to allow for a call of an MCP tool:
// the server, the tool and the arguments (compact JSON). Everything in it
// that a server or the model chose is shown with every control or
// invisible character escaped (edits.VisibleLine), so that nothing can hide
// what runs. Arguments longer than maxArgs bytes (0: no limit) are cut, and
// the question says so.
func Question(ap agent.Approval, maxArgs int) string {
	args := visible(string(ap.Args))
	if args == "" {
		args = "{}"
	}
	if maxArgs > 0 && len(args) > maxArgs {
		cut := maxArgs
		for cut > 0 && !utf8RuneStart(args[cut]) {
			cut--
		}
		args = fmt.Sprintf("%s… (%d more bytes not shown)", args[:cut], len(args)-cut)
	}
	return fmt.Sprintf("Allow MCP server \"%s\" to run its tool \"%s\" with %s?", visible(ap.Server), visible(ap.ServerTool), args)
}

func visible(s string) string {
	shown, _ := edits.VisibleLine(s)
	return shown
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }
