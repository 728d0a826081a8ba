package main

import (
	"fmt"
	"time"
)

var spinnerFrames = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// spin draws a spinner with the run's status under the last line until
// stop is called; stop waits for the drawing goroutine. Only for a
// terminal: the frames are redrawn in place with a carriage return.
func (p *printer) spin(every time.Duration) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-quit:
				return
			case <-tick.C:
				p.mu.Lock()
				p.drawSpinner()
				p.mu.Unlock()
			}
		}
	}()
	return func() {
		close(quit)
		<-done
		p.mu.Lock()
		p.clearSpinner()
		p.mu.Unlock()
	}
}

// drawSpinner draws the next frame; p.mu is held. Nothing is drawn while a
// line of text is open or there is nothing to say.
func (p *printer) drawSpinner() {
	if p.inText || p.status == "" {
		return
	}
	p.frame = (p.frame + 1) % len(spinnerFrames)
	fmt.Fprintf(p.w, "\r%s %s\x1b[K", p.paint(cyan, spinnerFrames[p.frame]), p.paint(dim, shorten(p.status, 60)+"…"))
	p.spinning = true
}

// clearSpinner erases the spinner's line; p.mu is held.
func (p *printer) clearSpinner() {
	if p.spinning {
		fmt.Fprint(p.w, "\r\x1b[K")
		p.spinning = false
	}
}
