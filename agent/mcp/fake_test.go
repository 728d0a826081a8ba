package mcp

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// The test binary is also a misbehaving MCP server: run with
// AGENTLS_FAKE_MCP set, it speaks MCP on stdin and stdout by hand, the way
// that variable says, so that every fault can be staged.
func TestMain(m *testing.M) {
	if mode, ok := os.LookupEnv("AGENTLS_FAKE_MCP"); ok {
		fakeServer(mode)
		os.Exit(0)
	}
	// opencensus, which genai brings, starts a worker at init.
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}

// fakeTools are the tools the fake server lists unless AGENTLS_FAKE_TOOLS
// names others (JSON).
const fakeTools = `[
 {"name": "echo", "description": "Echoes text.", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}},
 {"name": "env", "description": "Prints the environment.", "inputSchema": {"type": "object"}},
 {"name": "pid", "description": "Says its process id.", "inputSchema": {"type": "object"}},
 {"name": "big", "description": "Answers 10 MB.", "inputSchema": {"type": "object"}},
 {"name": "die", "description": "Exits during the call.", "inputSchema": {"type": "object"}},
 {"name": "garbage", "description": "Answers what is not JSON.", "inputSchema": {"type": "object"}},
 {"name": "slow", "description": "Never answers.", "inputSchema": {"type": "object"}},
 {"name": "fail", "description": "Reports an error.", "inputSchema": {"type": "object"}},
 {"name": "mixed", "description": "Answers an image, a resource and structured content.", "inputSchema": {"type": "object"}},
 {"name": "child", "description": "Starts a process that outlives it, and says its id.", "inputSchema": {"type": "object"}}
]`

// fakeServer speaks MCP's JSON-RPC on stdin and stdout. mode:
//
//	ok      a server (it refuses server/discover, as older servers do)
//	exit    writes to stderr and exits at once
//	hang    reads, never answers
//	garbage answers initialize with what is not JSON
func fakeServer(mode string) {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "fake: cannot open the database")
		os.Exit(3)
	case "hang":
		select {}
	}
	tools := fakeTools
	if t := os.Getenv("AGENTLS_FAKE_TOOLS"); t != "" {
		tools = t
	}
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(b)
		out.WriteByte('\n')
		out.Flush()
	}
	reply := func(id json.RawMessage, result any) {
		send(map[string]any{"jsonrpc": "2.0", "id": id, "result": result})
	}
	text := func(s string) map[string]any {
		return map[string]any{"content": []any{map[string]any{"type": "text", "text": s}}}
	}
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	for in.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(in.Bytes(), &msg) != nil || msg.ID == nil {
			continue // a notification
		}
		switch msg.Method {
		case "initialize":
			if mode == "garbage" {
				out.WriteString("{\"jsonrpc\": \"2.0\", \"id\": " + string(msg.ID) + ", \"result\": {oops\n")
				out.Flush()
				continue
			}
			reply(msg.ID, map[string]any{"protocolVersion": "2025-06-18", "serverInfo": map[string]any{"name": "fake", "version": "1"},
				"capabilities": map[string]any{"tools": map[string]any{"listChanged": true}}})
		case "tools/list":
			reply(msg.ID, map[string]any{"tools": json.RawMessage(tools)})
		case "tools/call":
			a := msg.Params.Arguments
			switch msg.Params.Name {
			case "echo":
				reply(msg.ID, text(fmt.Sprint(a["text"])))
			case "env":
				reply(msg.ID, text(strings.Join(os.Environ(), "\n")))
			case "pid":
				reply(msg.ID, text(fmt.Sprint(os.Getpid())))
			case "big":
				reply(msg.ID, text(strings.Repeat("0123456789", 1<<20)))
			case "die":
				fmt.Fprintln(os.Stderr, "fake: segmentation fault")
				os.Exit(7)
			case "garbage":
				out.WriteString("{\"jsonrpc\": \"2.0\", \"id\": " + string(msg.ID) + ", \"result\": [oops\n")
				out.Flush()
			case "slow":
				// never answered
			case "fail":
				reply(msg.ID, map[string]any{"isError": true, "content": []any{map[string]any{"type": "text", "text": "no such row"}}})
			case "mixed":
				reply(msg.ID, map[string]any{
					"content": []any{
						map[string]any{"type": "text", "text": `{"temperature":21}`},
						map[string]any{"type": "image", "mimeType": "image/png", "data": "aGVsbG8="},
						map[string]any{"type": "resource_link", "uri": "file:///tmp/report.pdf", "name": "report"},
						map[string]any{"type": "resource", "resource": map[string]any{"uri": "mem://notes", "mimeType": "text/plain", "text": "secret notes"}},
					},
					"structuredContent": map[string]any{"temperature": 21},
				})
			case "child":
				reply(msg.ID, text(fmt.Sprint(startChild())))
			default:
				send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32602, "message": "unknown tool " + msg.Params.Name}})
			}
		default:
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "method not found"}})
		}
	}
}
