package tools

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

// maxShellOutput caps the output of a shell command the model reads: its
// head and its tail, half each.
const maxShellOutput = 16 << 10

// A capped keeps the head and the tail of what is written to it, within max
// bytes, and counts the rest. It is safe for concurrent writes.
type capped struct {
	max int

	mu    sync.Mutex
	head  []byte
	tail  []byte // the last max/2 bytes after the head, once it is full
	total int64
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	written := len(p)
	c.total += int64(len(p))
	half := c.max / 2
	if room := half - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	c.tail = append(c.tail, p...)
	if len(c.tail) > 2*half { // keep the buffer small; trim rarely
		c.tail = append(c.tail[:0], c.tail[len(c.tail)-half:]...)
	}
	return written, nil
}

// String returns the head, a marker for what was left out, and the tail,
// cut at character boundaries.
func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	tail := c.tail
	if len(tail) > c.max/2 {
		tail = tail[len(tail)-c.max/2:]
	}
	omitted := c.total - int64(len(c.head)) - int64(len(tail))
	if omitted == 0 {
		return string(c.head) + string(tail)
	}
	head := c.head
	for i := len(head) - 1; i >= max(0, len(head)-utf8.UTFMax); i-- {
		if utf8.RuneStart(head[i]) {
			if !utf8.FullRune(head[i:]) {
				head = head[:i]
			}
			break
		}
	}
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) {
		tail = tail[1:]
	}
	omitted = c.total - int64(len(head)) - int64(len(tail))
	return fmt.Sprintf("%s\n[… %d bytes omitted …]\n%s", head, omitted, tail)
}
