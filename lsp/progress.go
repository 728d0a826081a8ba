package lsp

import (
	"context"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// reportInterval bounds $/progress reports to ten a second per run.
const reportInterval = 100 * time.Millisecond

// A progress is one run's work-done progress: $/progress begin, reports and
// end on its token, or window/logMessage lines for clients without
// window.workDoneProgress. Reports are coalesced; the latest message is never
// lost, and end is always sent.
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

// beginProgress starts progress for a run: on the client's token when it
// gave one, on a token the server creates when the client supports it, or as
// log lines.
func (s *Server) beginProgress(ctx context.Context, h *runHandle, clientToken protocol.ProgressToken, title string) *progress {
	p := &progress{s: s, title: title}
	switch {
	case tokenKey(clientToken) != "":
		p.token = clientToken
	case s.clientCaps().workDoneProgress:
		tok := protocol.String("agentls/" + h.id)
		if err := s.client.WorkDoneProgressCreate(ctx, &protocol.WorkDoneProgressCreateParams{Token: tok}); err != nil {
			s.log.Warn("workDoneProgress/create failed; reporting progress as log lines", "run", h.id, "err", err)
		} else {
			p.token = tok
		}
	}
	if p.token == nil {
		p.log(ctx, title)
		return p
	}
	s.runs.setToken(h, tokenKey(p.token))
	p.send(ctx, &protocol.WorkDoneProgressBegin{Kind: "begin", Title: title, Cancellable: ptr(true)})
	return p
}

// report shows msg, at most ten times a second; a report held back goes out
// when the interval has passed.
func (p *progress) report(ctx context.Context, msg string, pct *uint32) {
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

// end ends the progress with msg. It is sent even when ctx is cancelled.
func (p *progress) end(ctx context.Context, msg string) {
	ctx = context.WithoutCancel(ctx)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ended {
		return
	}
	p.ended = true
	if p.timer != nil {
		p.timer.Stop()
	}
	if p.token == nil {
		p.log(ctx, msg)
		return
	}
	p.send(ctx, &protocol.WorkDoneProgressEnd{Kind: "end", Message: &msg})
}

func (p *progress) send(ctx context.Context, value any) {
	b, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Error("progress: marshal", "err", err)
		return
	}
	if err := p.s.client.Progress(ctx, &protocol.ProgressParams{Token: p.token, Value: b}); err != nil {
		p.s.log.Debug("progress: send", "err", err)
	}
}

func (p *progress) log(ctx context.Context, msg string) {
	p.s.client.LogMessage(context.WithoutCancel(ctx), &protocol.LogMessageParams{Type: protocol.MessageTypeInfo, Message: p.title + ": " + msg})
}
