package lsp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
	"github.com/agentls/agentls/workspace"
)

// proposer sends a run's changes to the editor as workspace/applyEdit
// requests and turns the editor's answers into decisions.
type proposer struct {
	s    *Server
	ws   *workspace.Workspace
	caps clientCaps
	auto bool // autoEdit: no confirmation annotations
}

func (p *proposer) Propose(ctx context.Context, ch agent.Change) (agent.Decision, error) {
	unlock, err := p.s.files.lock(ctx, ch.Path)
	if err != nil {
		return agent.Decision{}, err
	}
	defer unlock()

	// The editor's buffer must still hold what the tool computed against:
	// some clients (Neovim 0.7) apply stale edits without checking versions.
	cur, err := p.ws.ReadFile(ch.Path)
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	}
	if exists == ch.Create || (exists && cur.Text != ch.Old) {
		return agent.Decision{Outcome: agent.OutcomeConflict}, nil
	}
	fc := edits.FileChange{URI: workspace.URIFromPath(p.ws.ClientPath(ch.Path)), Old: ch.Old, New: ch.New, Create: ch.Create}
	if cur.Open {
		v := cur.Version
		fc.Version = &v
	}
	label := "agentls: " + ch.Name
	we, err := edits.WorkspaceEdit([]edits.FileChange{fc}, edits.Options{
		Encoding:          p.caps.encoding,
		Label:             label,
		Description:       ch.Reason,
		NeedsConfirmation: !p.auto,
	})
	if err != nil {
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	}
	if err := ctx.Err(); err != nil {
		return agent.Decision{}, err // nothing is proposed after a cancel
	}
	res, err := p.s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: *we})
	if err != nil {
		if ctx.Err() != nil {
			return agent.Decision{}, ctx.Err()
		}
		// Some clients (Emacs eglot) answer a refusal with an error.
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) {
			return agent.Decision{Outcome: agent.OutcomeRejected, Message: rpcErr.Message}, nil
		}
		return agent.Decision{Outcome: agent.OutcomeFailed, Message: err.Error()}, nil
	}
	if !res.Applied {
		msg := ""
		if res.FailureReason != nil {
			msg = *res.FailureReason
		}
		return agent.Decision{Outcome: agent.OutcomeRejected, Message: msg}, nil
	}
	return agent.Decision{Outcome: agent.OutcomeApplied}, nil
}

// fileLocks serializes proposals to one file across runs, so two runs never
// have two proposals open on the same buffer.
type fileLocks struct {
	mu    sync.Mutex
	locks map[string]chan struct{}
}

// lock waits for the file's lock or ctx's end.
func (l *fileLocks) lock(ctx context.Context, path string) (unlock func(), err error) {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = make(map[string]chan struct{})
	}
	c, ok := l.locks[path]
	if !ok {
		c = make(chan struct{}, 1)
		l.locks[path] = c
	}
	l.mu.Unlock()
	select {
	case c <- struct{}{}:
		return func() { <-c }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func newID() string {
	b := make([]byte, 4)
	rand.Read(b)
	return hex.EncodeToString(b)
}
