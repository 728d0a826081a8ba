package agent

import (
	"sync"
	"time"
)

// A clock measures a run's time against its limit, and stops while the user
// is being asked something.
type clock struct {
	limit  time.Duration // 0: no limit
	now    func() time.Time
	expire func()

	mu      sync.Mutex
	used    time.Duration // time run before the current running stretch
	since   time.Time     // start of the current running stretch; zero while paused
	paused  int
	timer   *time.Timer
	stopped bool
}

func newClock(limit time.Duration, now func() time.Time, expire func()) *clock {
	c := &clock{limit: limit, now: now, expire: expire}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.since = now()
	c.arm()
	return c
}

// arm starts the timer for the remaining budget. c.mu is held.
func (c *clock) arm() {
	if c.limit <= 0 || c.stopped {
		return
	}
	left := c.limit - c.used
	if left <= 0 {
		left = 0
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(left, c.expire)
	} else {
		c.timer.Reset(left)
	}
}

// pause stops the clock until the returned function is called. Pauses nest.
func (c *clock) pause() func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused == 0 {
		c.used += c.now().Sub(c.since)
		c.since = time.Time{}
		if c.timer != nil {
			c.timer.Stop()
		}
	}
	c.paused++
	var once sync.Once
	return func() { once.Do(c.resume) }
}

func (c *clock) resume() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused--
	if c.paused == 0 {
		c.since = c.now()
		c.arm()
	}
}

// stop releases the timer; the clock never expires afterwards.
func (c *clock) stop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.stopped = true
	if c.timer != nil {
		c.timer.Stop()
	}
}
