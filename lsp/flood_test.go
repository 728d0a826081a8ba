package lsp_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agentls/agentls/lsp"
	"github.com/agentls/agentls/lsp/transport"
)

type pipes struct {
	io.Reader
	io.WriteCloser
}

func (p pipes) Close() error { return p.WriteCloser.Close() }

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n atomic.Int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// A client that keeps sending requests but stops reading the answers does
// not grow the server without limit: the server stops reading once too many
// answers wait to be written, so the client blocks on its own writes. While
// the client reads the answers one by one, the server has never read more
// than a bounded number of requests ahead of them; in the end every request
// is answered and the server goes on serving. (The transport's own tests
// show deterministically that reading stops.)
func TestClientThatStopsReading(t *testing.T) {
	t.Parallel()
	inR, inW := io.Pipe()   // the server's stdin
	outR, outW := io.Pipe() // the server's stdout
	in := &countingReader{r: inR}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- lsp.New(lsp.Config{}).Serve(ctx, pipes{in, outW}) }()

	const flood = 5000
	request := func(i int) string {
		return frame(fmt.Sprintf(`{"jsonrpc":"2.0","id":%06d,"method":"workspace/executeCommand","params":{"command":"agentls.nope"}}`, i))
	}
	size := int64(len(request(0)))
	go func() {
		for i := range flood {
			if _, err := io.WriteString(inW, request(i+1)); err != nil {
				return
			}
		}
	}()
	// What the server may read ahead of the answers read: the answers that
	// wait to be written, the requests running, and its read buffer.
	ahead := int64(transport.MaxPendingWrites + transport.DefaultInFlight + 4096/int(size) + 2)
	answers := bufio.NewReader(outR)
	for got := range int64(flood) {
		if read := in.n.Load() / size; read > got+ahead {
			t.Fatalf("the server read %d requests with %d answers read", read, got)
		}
		if body := readFrame(t, answers); !strings.Contains(body, `"error"`) {
			t.Fatalf("answer %d: %s", got+1, body)
		}
	}
	io.WriteString(inW, frame(`{"jsonrpc":"2.0","id":"last","method":"shutdown"}`))
	if body := readFrame(t, answers); !strings.Contains(body, `"id":"last"`) {
		t.Errorf("after the flood: %s", body)
	}
	inW.Close()
	cancel()
	<-done
}

// readFrame reads one Content-Length frame's body.
func readFrame(t *testing.T, r *bufio.Reader) string {
	t.Helper()
	b, err := lsp.ReadFrameBody(r)
	if err != nil {
		t.Fatalf("reading a frame: %v", err)
	}
	return string(b)
}
