package runner

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agentls/agentls/agent/trace"
)

// pruneEvery is the least time between two prunes of the trace folder, by
// any process: a terminal user's every `agentls run` is a new process, and a
// prune stats every trace.
const pruneEvery = time.Hour

// prunedStamp is the file in the trace folder whose modification time says
// when it was last pruned.
const prunedStamp = ".pruned"

// pruning is the state of the host's pruning of its trace folder.
type pruning struct {
	mu   sync.Mutex
	busy bool
	last time.Time
	wg   sync.WaitGroup
}

// pruneTraces deletes, in the background, the traces of the host's trace
// folder that r does not keep: a run never waits for it. It prunes at most
// once a minute and never twice at once. Wait waits for it.
func (h *Host) pruneTraces(r trace.Retention) {
	dir, now := h.TraceDir, h.now()
	p := &h.pruning
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy || !p.last.IsZero() && now.Sub(p.last) < pruneEvery {
		return
	}
	stamp := filepath.Join(dir, prunedStamp)
	if fi, err := os.Stat(stamp); err == nil && !fi.ModTime().After(now) && now.Sub(fi.ModTime()) < pruneEvery {
		p.last = fi.ModTime() // pruned lately, by this process or another
		return
	}
	p.busy, p.last = true, now
	p.wg.Go(func() {
		defer func() {
			p.mu.Lock()
			p.busy = false
			p.mu.Unlock()
		}()
		// Bounded (trace.Prune removes at most 2,000 files), so it is not
		// cut short: the folder's state would then depend on timing.
		if _, err := trace.PruneTraces(context.Background(), dir, r, now); err != nil {
			h.warn(fmt.Sprintf("pruning traces: %v", err))
			return
		}
		if err := os.WriteFile(stamp, nil, 0o600); err == nil {
			os.Chtimes(stamp, now, now)
		}
	})
}

// Wait waits for the host's background work, a prune of the trace folder,
// to end. A front end calls it before it exits.
func (h *Host) Wait() { h.pruning.wg.Wait() }

// retention is the trace retention of a run's settings.
func retention(spec Spec) trace.Retention {
	return trace.RetentionOf(spec.Settings.TraceMaxAgeDays, spec.Settings.TraceMaxSizeMB)
}
