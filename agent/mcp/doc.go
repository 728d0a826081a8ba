// Package mcp gives runs the tools of Model Context Protocol servers, through
// the official Go SDK (github.com/modelcontextprotocol/go-sdk).
//
// Vocabulary:
//
//   - A [Server] is one server as the settings define it: a command that
//     speaks MCP on its stdin and stdout, or an SSE or streamable HTTP
//     endpoint.
//   - A connection is one running server for one workspace folder. The
//     [Manager] holds them for as long as the front end serves: a server
//     starts when a run first needs it, later runs and their subagents reuse
//     it, and [Manager.Close] ends it (a command's whole process group).
//   - A [Toolset] is what one run gets: an agent.Tool per tool of its
//     servers, named mcp_{server}_{tool} ([ToolName]), and the problems to
//     report (a server that did not start, a tool left out). A server that
//     stops during a run is started again once per run.
//   - A [Decl] is a tool as the run declared it; a trace records them, and
//     [Offline] makes a tool of one again without any server, for replays.
//
// Calls are approved like shell commands (the tools are agent.Approvable:
// the question names the server, the tool and the arguments); a server with
// trust from the user's own settings is agent.Trusted. Results reach the
// model as text, capped; structured content as JSON; images, audio and
// resources are named, never inlined.
package mcp
