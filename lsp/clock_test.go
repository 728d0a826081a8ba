package lsp_test

import (
	"context"
	"fmt"
	"sync"
	"time"
)

// A fakeClock is the server's After under a test's control: time passes
// only when the test fires a duration.
type fakeClock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	timers map[time.Duration][]chan time.Time
}

func newFakeClock() *fakeClock {
	c := &fakeClock{timers: map[time.Duration][]chan time.Time{}}
	c.cond = sync.NewCond(&c.mu)
	return c
}

// After implements lsp.Config.After.
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timers[d] = append(c.timers[d], ch)
	c.cond.Broadcast()
	return ch
}

// fire waits until a wait of d has begun, then ends every wait of d.
func (c *fakeClock) fire(d time.Duration) {
	c.fireCtx(context.Background(), d)
}

// fireCtx is fire that gives up when ctx ends.
func (c *fakeClock) fireCtx(ctx context.Context, d time.Duration) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.cond.Broadcast()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers[d]) == 0 {
		if ctx.Err() != nil {
			return fmt.Errorf("no wait of %s began", d)
		}
		c.cond.Wait()
	}
	for _, ch := range c.timers[d] {
		ch <- time.Now()
	}
	delete(c.timers, d)
	return nil
}
