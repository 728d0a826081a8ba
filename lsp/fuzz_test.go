package lsp_test

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/agentls/agentls/lsp"
)

// serveBound is how long a server may take to stop after its stdin ends,
// whatever came before.
const serveBound = 10 * time.Second

// FuzzServe writes arbitrary bytes to a server's stdin, as a broken client
// would, then closes it: the server must never panic, and must return from
// Serve within serveBound. Seeds are in testdata/fuzz/FuzzServe and below.
func FuzzServe(f *testing.F) {
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"rootUri":"file:///tmp","capabilities":{"workspace":{"configuration":true}}}}`
	for _, seed := range []string{
		"",
		frame(init) + frame(`{"jsonrpc":"2.0","method":"initialized","params":{}}`) +
			frame(`{"jsonrpc":"2.0","id":2,"method":"textDocument/codeAction","params":{"textDocument":{"uri":"file:///tmp/a.go"},"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"context":{"diagnostics":[]}}}`) +
			frame(`{"jsonrpc":"2.0","id":3,"method":"shutdown"}`) + frame(`{"jsonrpc":"2.0","method":"exit"}`),
		frame(init) + frame(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///tmp/a.go","languageId":"go","version":1,"text":"a\nb"}}}`) +
			frame(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///tmp/a.go","version":2},"contentChanges":[{"range":{"start":{"line":1,"character":0},"end":{"line":9,"character":0}},"text":"x"}]}}`),
		frame(init) + frame(`{"jsonrpc":"2.0","id":2,"method":"workspace/executeCommand","params":{"command":"agentls.run","arguments":[{"prompt":"x"}]}}`),
		"Content-Length: 99999999\r\n\r\n{",
		"Content-Length: -1\r\n\r\n" + frame(init),
		"Content-Length: 10\r\n\r\n{\"jsonrpc\"" + frame(init),
		"Content-Length: 5\r\nContent-Length: 7\r\n\n[1,2,3]",
		frame(`[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}},{"jsonrpc":"2.0","method":"exit"}]`),
		frame(`{"jsonrpc":"2.0","id":{"x":1},"method":"initialize"}`),
		"\r\n\r\n\r\nContent-Length:1\r\n\r\n\x00",
	} {
		f.Add([]byte(seed))
	}
	dir := f.TempDir() // the server's config and cache folders
	f.Fuzz(func(t *testing.T, in []byte) {
		inR, inW := io.Pipe()
		outR, outW := io.Pipe()
		go io.Copy(io.Discard, outR)
		srv := lsp.New(lsp.Config{UserConfigDir: dir, CacheDir: dir, Exit: func(int) {}})
		done := make(chan error, 1)
		go func() {
			done <- srv.Serve(context.Background(), pipeRWC{inR, outW})
			outW.Close()
		}()
		go func() {
			inW.Write(in) // fails once the server stops reading
			inW.Close()
		}()
		select {
		case <-done:
		case <-time.After(serveBound):
			t.Fatalf("Serve did not return within %v of the end of its input", serveBound)
		}
		inR.Close()
	})
}
