package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/agentls/agentls/workspace"
)

// TestDidOpenBigText sends large didOpen and didChange texts through Serve,
// as an editor writes them to its stdin, and checks that the overlay holds
// what encoding/json decodes from them: multi-byte UTF-8, escapes, escaped
// surrogate pairs and lone surrogates, raw invalid UTF-8, several texts in
// one didChange, and a small change after them. The transport lifts these
// texts out of their frames (decodeSync); a text under bigText and a
// malformed one take the ordinary path.
func TestDidOpenBigText(t *testing.T) {
	t.Parallel()
	var doc strings.Builder
	for i := 0; doc.Len() < 3<<20; i++ {
		fmt.Fprintf(&doc, "\tv%d := \"日本\" // \\ \u2028 😀 line %d\r\n", i, i)
	}
	quoted, _ := json.Marshal(doc.String())
	q := string(quoted[:len(quoted)-1]) // without its closing quote
	root := t.TempDir()
	uri := string(workspace.URIFromPath(filepath.Join(root, "big.go")))
	open := func(version int, text string) string {
		return `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"go","version":` + strconv.Itoa(version) + `,"text":` + text + `}}}`
	}
	change := func(version int, changes ...string) string {
		return `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":` + strconv.Itoa(version) + `},"contentChanges":[` + strings.Join(changes, ",") + `]}}`
	}
	tests := []struct {
		name   string
		frames []string
		want   string // the JSON of the text the overlay must hold
	}{
		{"UTF-8 and escapes", []string{open(1, string(quoted))}, string(quoted)},
		{"escaped non-ASCII and surrogates", []string{open(1, q+`\u65e5\u672c \ud83d\ude00 \ud800 \udc00x \/ \b\f"`)}, q + `\u65e5\u672c \ud83d\ude00 \ud800 \udc00x \/ \b\f"`},
		{"raw invalid UTF-8 first", []string{open(1, "\"\xff\xfe"+q[1:]+"\xc3\"")}, "\"\xff\xfe" + q[1:] + "\xc3\""},
		{"a small text", []string{open(1, `"small\n\u00e9"`)}, `"small\n\u00e9"`},
		{"didChange: texts and a range", []string{open(1, `"x"`), change(2, `{"text":`+string(quoted)+`}`,
			`{"range":{"start":{"line":0,"character":1},"end":{"line":0,"character":1}},"text":"ABC"}`, `{"text":`+q+`\ud83d\ude00"}`,
			`{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"text":"`+strings.Repeat(`\u00e9`, 20000)+`"}`)},
			q[:strings.Index(q, `\r\n`)+4] + strings.Repeat(`\u00e9`, 20000) + q[strings.Index(q, `\r\n`)+4:] + `\ud83d\ude00"`},
		// A bad escape: the frame is invalid JSON and changes nothing.
		{"invalid escape", []string{open(1, `"x"`), open(2, q+`\q"`)}, `"x"`},
		{"control character", []string{open(1, `"x"`), open(2, q+"\x01\"")}, `"x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want string
			if err := json.Unmarshal([]byte(tt.want), &want); err != nil {
				t.Fatal(err)
			}
			s := New(Config{UserConfigDir: t.TempDir(), CacheDir: t.TempDir()})
			c := serveOnPipes(t, s)
			c.call(t, 1, "initialize", `{"processId":null,"rootUri":"`+string(workspace.URIFromPath(root))+`","capabilities":{}}`)
			c.send(t, `{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			for _, f := range tt.frames {
				c.send(t, f)
			}
			c.call(t, 2, "shutdown", "null") // answered once the notifications before it are handled
			got, _, ok := s.workspace().Buffer(filepath.Join(root, "big.go"))
			if !ok || got != want {
				t.Errorf("the overlay holds %d bytes (open %v) %.80q…; encoding/json decodes %d bytes %.80q…", len(got), ok, got, len(want), want)
			}
		})
	}
}

// pipeClient writes frames to a server's stdin; frames holds the bodies
// the server writes, read as they come.
type pipeClient struct {
	in     io.Writer
	frames chan []byte
}

type pipeConn struct {
	*io.PipeReader
	out *io.PipeWriter
}

func (p pipeConn) Write(b []byte) (int, error) { return p.out.Write(b) }
func (p pipeConn) Close() error                { p.PipeReader.Close(); return p.out.Close() }

// serveOnPipes runs s.Serve on pipes until the test ends.
func serveOnPipes(t *testing.T, s *Server) *pipeClient {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Serve(context.Background(), pipeConn{inR, outW})
		outW.Close()
	}()
	c := &pipeClient{in: inW, frames: make(chan []byte, 64)}
	go func() {
		defer close(c.frames)
		out := bufio.NewReader(outR)
		for {
			body, err := ReadFrameBody(out)
			if err != nil {
				return
			}
			c.frames <- body
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		for range c.frames {
		}
		<-done
	})
	return c
}

func (c *pipeClient) send(t *testing.T, body string) {
	t.Helper()
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(body), body); err != nil {
		t.Fatal(err)
	}
}

// call sends a request and reads frames until its answer.
func (c *pipeClient) call(t *testing.T, id int, method, params string) {
	t.Helper()
	c.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params))
	for body := range c.frames {
		var m struct {
			ID     json.RawMessage
			Method string
			Error  json.RawMessage
		}
		json.Unmarshal(body, &m)
		if m.Method == "" && string(m.ID) == strconv.Itoa(id) {
			if len(m.Error) > 0 {
				t.Fatalf("%s: %s", method, m.Error)
			}
			return
		}
	}
	t.Fatalf("%s: the server's output ended", method)
}
