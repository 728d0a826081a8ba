package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/edits"
)

// reportInterval bounds $/progress reports to ten a second per token.
const reportInterval = 100 * time.Millisecond

// A progress is the work-done progress of a run or a subagent: $/progress
// begin, reports and end on its token, or window/logMessage lines for
// clients without window.workDoneProgress. Reports are coalesced: at most
// one per reportInterval, and the latest message is never lost (a report
// held back goes out when the interval has passed, or just before end).
// End is always sent, even after a cancel.
type progress struct {
	s     *Server
	token protocol.ProgressToken // nil: log lines instead
	title string

	mu      sync.Mutex
	last    time.Time // when the last report went out
	pending *protocol.WorkDoneProgressReport
	timer   *time.Timer
	ended   bool
}

// beginProgress starts progress with title: on the client's token when it
// gave one, else on a token the server creates (named name) when the client
// supports work-done progress, else as log lines. A non-nil token is
// registered with register, so that cancelling it reaches its owner.
func (s *Server) beginProgress(ctx context.Context, clientToken protocol.ProgressToken, name, title string, register func(key string)) *progress {
	p := &progress{s: s, title: title}
	switch {
	case tokenKey(clientToken) != "":
		p.token = clientToken
	case s.clientCaps().workDoneProgress:
		tok := protocol.String(name)
		if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: tok}); err != nil {
			s.log.Warn("workDoneProgress/create failed; reporting progress as log lines", "token", name, "err", err)
		} else {
			p.token = tok
		}
	}
	if p.token == nil {
		p.log(ctx, "started")
		return p
	}
	if register != nil {
		register(tokenKey(p.token))
	}
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: ptr(true)})
	return p
}

// report shows msg, at most ten times a second; a report held back goes out
// when the interval has passed. pct may be nil.
func (p *progress) report(ctx context.Context, msg string, pct *uint32) {
	msg, _ = edits.VisibleLine(msg) // model text: nothing may rewrite the display
	r := &protocol.WorkDoneProgressReport{Kind: "report", Message: &msg, Percentage: pct}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	if p.token == nil {
		p.log(ctx, msg)
		return
	}
	wait := reportInterval - p.s.now().Sub(p.last)
	if wait <= 0 && p.pending == nil {
		p.last = p.s.now()
		p.send(ctx, r)
		return
	}
	p.pending = r
	if p.timer == nil {
		ctx := context.WithoutCancel(ctx)
		p.timer = time.AfterFunc(max(wait, 0), func() { p.flush(ctx) })
	}
}

func (p *progress) flush(ctx context.Context) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.timer = nil
	if p.ended || p.pending == nil {
		return
	}
	p.last = p.s.now()
	p.send(ctx, p.pending)
	p.pending = nil
}

// end ends the progress with msg. It is sent even when ctx is cancelled; a
// report still held back goes out first.
func (p *progress) end(ctx context.Context, msg string) {
	msg, _ = edits.Visible(msg)
	ctx = context.WithoutCancel(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	if p.token == nil {
		p.log(ctx, "finished: "+msg)
		return
	}
	if p.pending != nil {
		p.send(ctx, p.pending)
		p.pending = nil
	}
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
}

func (p *progress) send(ctx context.Context, value any) {
	b, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Error("progress: marshal", "err", err)
		return
	}
	if err := p.s.client.Progress(context.WithoutCancel(ctx), &protocol.ProgressParams{Token: p.token, Value: b}); err != nil {
		p.s.log.Debug("progress: send", "err", err)
	}
}

func (p *progress) log(ctx context.Context, msg string) {
	p.s.client.LogMessage(context.WithoutCancel(ctx), &protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: p.title + ": " + msg})
}
