package transport

import (
	"context"
	"sync"
)

// MaxPendingWrites is how many messages may wait to be written before the
// stream stops reading: a client that sends requests without reading the
// answers is then held up by its own writes, and the server keeps at most
// this many answers (and their goroutines) instead of one per request.
const MaxPendingWrites = 64

// writeGate counts the writes under way and lets the reader wait while
// there are too many.
type writeGate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	pending int
	max     int
}

func (g *writeGate) init(max int) {
	g.cond = sync.NewCond(&g.mu)
	g.max = max
}

func (g *writeGate) enter() {
	g.mu.Lock()
	g.pending++
	g.mu.Unlock()
}

func (g *writeGate) leave() {
	g.mu.Lock()
	g.pending--
	g.cond.Broadcast()
	g.mu.Unlock()
}

// waitBelow waits until fewer than max writes are under way, or ctx ends.
func (g *writeGate) waitBelow(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	defer stop()
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.pending >= g.max {
		if err := ctx.Err(); err != nil {
			return err
		}
		g.cond.Wait()
	}
	return ctx.Err()
}
