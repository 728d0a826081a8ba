package mcp

import "strings"

// Prefix starts the name of every MCP tool the model sees.
const Prefix = "mcp_"

// maxName is the longest function name the Gemini API takes (64 less one,
// as Gemini CLI keeps).
const maxName = 63

// ToolName is the name the model sees for the tool of a server:
// mcp_{server}_{tool}, with every character outside [A-Za-z0-9_.-]
// replaced by _, and a name longer than 63 characters cut to its first 30
// and last 30 around "...", as Gemini CLI names them.
func ToolName(server, tool string) string {
	name := Prefix + sanitize(server) + "_" + sanitize(tool)
	if len(name) > maxName {
		name = name[:30] + "..." + name[len(name)-30:]
	}
	return name
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '.', r == '-':
			return r
		}
		return '_'
	}, s)
}
