package lsp_test

import (
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
	c.mu.Lock()
	defer c.mu.Unlock()
	for len(c.timers[d]) == 0 {
		c.cond.Wait()
	}
	for _, ch := range c.timers[d] {
		ch <- time.Now()
	}
	delete(c.timers, d)
}
