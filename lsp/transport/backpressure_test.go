package transport

import (
	"bufio"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"go.lsp.dev/jsonrpc2"
)

// stuckStream is a stream whose writes wait until released, like a pipe
// its reader stopped reading.
type stuckStream struct {
	jsonrpc2.Stream
	release chan struct{}
}

func (s stuckStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	<-s.release
	return 0, nil
}

// While MaxPendingWrites messages wait to be written, the stream reads no
// more: it reads again as soon as one is written.
func TestReadingWaitsForWrites(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		body := `{"jsonrpc":"2.0","id":1,"method":"x"}`
		in := strings.NewReader("Content-Length: 37\r\n\r\n" + body)
		release := make(chan struct{})
		s := &Stream{out: stuckStream{release: release}, in: bufio.NewReader(in), log: slog.New(slog.DiscardHandler)}
		s.writes.init(MaxPendingWrites)
		var wg sync.WaitGroup
		for range MaxPendingWrites {
			wg.Go(func() { s.Write(t.Context(), jsonrpc2.NewNotification("n", nil)) })
		}
		synctest.Wait() // every write is under way
		var read atomic.Bool
		wg.Go(func() {
			if got, _, err := s.ReadFrame(t.Context()); err != nil || string(got) != body {
				t.Errorf("ReadFrame = %q, %v", got, err)
			}
			read.Store(true)
		})
		synctest.Wait()
		if read.Load() {
			t.Fatal("the stream read a frame while its writes were stuck")
		}
		release <- struct{}{} // one write goes through
		synctest.Wait()
		if !read.Load() {
			t.Fatal("the stream did not read again once a write went through")
		}
		close(release)
		wg.Wait()
	})
}

// A reader waiting for writes stops when its context ends.
func TestReadingWaitStopsOnCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		defer close(release)
		s := &Stream{out: stuckStream{release: release}, in: bufio.NewReader(strings.NewReader("")), log: slog.New(slog.DiscardHandler)}
		s.writes.init(1)
		go s.Write(t.Context(), jsonrpc2.NewNotification("n", nil))
		synctest.Wait()
		ctx, cancel := context.WithCancel(t.Context())
		errc := make(chan error, 1)
		go func() { _, _, err := s.ReadFrame(ctx); errc <- err }()
		synctest.Wait()
		cancel()
		if err := <-errc; err != context.Canceled {
			t.Errorf("ReadFrame after cancel: %v", err)
		}
	})
}
