package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	sessions "github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/workspace"
)

// Sessions are kept by the host's session store (agent/session), as the
// other front ends keep theirs: an ACP session's id is the store's, its
// turns continue one conversation, and `agentls sessions` and `agentls
// revert` know it too.

// loadSession opens a kept session again (session/load): its conversation
// is told again as session/update, one user message and one answer a turn,
// and the next prompt continues it.
func (s *Server) loadSession(ctx context.Context, p acpsdk.LoadSessionRequest) (acpsdk.LoadSessionResponse, error) {
	store := s.cfg.Host.Sessions
	if store == nil {
		return acpsdk.LoadSessionResponse{}, rpcError(codeMethodNotFound, "session/load is not supported: this agentls keeps no sessions (loadSession is false)")
	}
	var info sessions.Info
	ss, err := s.openSession(p.Cwd, p.McpServers, func(root string) (string, error) {
		var err error
		info, err = store.Get(root, string(p.SessionId))
		if err != nil {
			return "", sessionError(err)
		}
		return info.ID, nil
	})
	if err != nil {
		return acpsdk.LoadSessionResponse{}, err
	}
	for _, r := range info.Runs {
		ss.update(ctx, acpsdk.UpdateUserMessageText(r.Prompt))
		ss.update(ctx, acpsdk.UpdateAgentMessageText(answer(r)))
	}
	modes, options := ss.state()
	return acpsdk.LoadSessionResponse{Modes: modes, ConfigOptions: options}, nil
}

// answer is a kept turn's answer as the user saw it end.
func answer(r sessions.RunInfo) string {
	switch {
	case r.End == nil:
		return "agentls: this turn did not end (its agentls stopped)."
	case r.End.Reason == agent.StopGoal && r.End.Result != "":
		return r.End.Result
	case r.End.Error != "":
		return fmt.Sprintf("agentls: the turn stopped (%s): %s.", r.End.Reason, r.End.Error)
	}
	return fmt.Sprintf("agentls: the turn stopped (%s).", r.End.Reason)
}

// sessionError is a store's error for the client.
func sessionError(err error) error {
	switch {
	case errors.Is(err, sessions.ErrNotFound):
		return rpcError(codeInvalidParams, "%v", err)
	case errors.Is(err, sessions.ErrBusy):
		return rpcError(codeInvalidRequest, "%v", err)
	}
	return rpcError(codeInternalError, "%v", err)
}

// listSessions lists the kept sessions that ran a turn (session/list), the
// latest first: those of the folder cwd names, or without one, those of the
// folders this connection's sessions are in and of agentls's own folder
// (where clients start it). agentls gives out no cursors: it answers every
// session at once.
func (s *Server) listSessions(p acpsdk.ListSessionsRequest) (acpsdk.ListSessionsResponse, error) {
	store := s.cfg.Host.Sessions
	if store == nil {
		return acpsdk.ListSessionsResponse{}, rpcError(codeMethodNotFound, "session/list is not supported: this agentls keeps no sessions")
	}
	if p.Cursor != nil {
		return acpsdk.ListSessionsResponse{}, rpcError(codeInvalidParams, "cursor %q is not one agentls gave: it lists every session at once", *p.Cursor)
	}
	roots, err := s.listRoots(p.Cwd)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, err
	}
	infos, problems, err := store.List(roots...)
	if err != nil {
		return acpsdk.ListSessionsResponse{}, rpcError(codeInternalError, "listing sessions: %v", err)
	}
	for _, pr := range problems {
		s.log.Warn("acp: a session is left out of the list", "err", pr)
	}
	out := acpsdk.ListSessionsResponse{Sessions: []acpsdk.SessionInfo{}}
	for _, info := range infos {
		if len(info.Runs) == 0 {
			continue // opened, never prompted
		}
		cwd := info.Root
		if p.Cwd != nil {
			cwd = *p.Cwd // as the client spells it
		}
		title, updated := titleOf(info), info.Updated.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, acpsdk.SessionInfo{SessionId: acpsdk.SessionId(info.ID), Cwd: cwd, Title: &title, UpdatedAt: &updated})
	}
	return out, nil
}

// listRoots are the workspace folders a listing looks in.
func (s *Server) listRoots(cwd *string) ([]string, error) {
	if cwd != nil {
		if !filepath.IsAbs(*cwd) {
			return nil, rpcError(codeInvalidParams, "cwd must be an absolute path, not %q", *cwd)
		}
		ws, err := workspace.New(*cwd)
		if err != nil {
			return nil, rpcError(codeInvalidParams, "cwd: %v", err)
		}
		return ws.Roots()[:1], nil
	}
	seen := map[string]bool{}
	var roots []string
	add := func(r string) {
		if !seen[r] {
			seen[r] = true
			roots = append(roots, r)
		}
	}
	if dir, err := os.Getwd(); err == nil {
		if ws, err := workspace.New(dir); err == nil {
			add(ws.Roots()[0])
		}
	}
	s.mu.Lock()
	for _, ss := range s.sessions {
		add(ss.root)
	}
	s.mu.Unlock()
	return roots, nil
}

// titleOf is a session's title: its own, else its first prompt's first
// line.
func titleOf(info sessions.Info) string {
	if info.Title != "" {
		return info.Title
	}
	t, _, _ := strings.Cut(strings.TrimSpace(info.Runs[0].Prompt), "\n")
	if r := []rune(t); len(r) > 80 {
		t = string(r[:79]) + "…"
	}
	return t
}

// forget deletes a kept session that never ran a turn, as it closes: the
// client made it and left it empty.
func (ss *session) forget() {
	store := ss.srv.cfg.Host.Sessions
	if !ss.kept || store == nil {
		return
	}
	if info, err := store.Get(ss.root, ss.id); err == nil && len(info.Runs) == 0 && info.Busy == "" {
		store.Delete(ss.root, ss.id)
	}
}

// A hold is a turn's hold on its kept session (none for a session that is
// not kept).
type hold struct {
	w      *sessions.Writer // nil when the session is not kept
	before int              // the history's length before the turn
	first  bool             // the session's first turn
	spent  float64          // what the session cost before the turn, in US dollars
}

// hold holds the session for the turn runID: the run continues its
// conversation and is written to it (the run releases it at its end).
func (ss *session) hold(runID string) (*hold, error) {
	if !ss.kept {
		return &hold{}, nil
	}
	w, err := ss.srv.cfg.Host.Session(ss.root, ss.id, runID, "")
	if err != nil {
		return nil, sessionError(err)
	}
	info := w.Info()
	return &hold{w: w, before: len(w.History()), first: len(info.Runs) == 0, spent: info.Usage.Cost}, nil
}

// close releases a hold whose run was never built.
func (h *hold) close() {
	if h.w != nil {
		h.w.Close()
	}
}

// forgetTurn takes the turn's part of the conversation out of the session
// again: the next turn starts from the history before it.
func (h *hold) forgetTurn() {
	if h.w != nil {
		h.w.SaveHistory(agent.HistoryChange{Keep: h.before})
	}
}

// told gives the client the session's title after its first turn.
func (h *hold) told(ctx context.Context, ss *session, prompt string) {
	if h.w == nil || !h.first {
		return
	}
	title := titleOf(sessions.Info{Runs: []sessions.RunInfo{{Prompt: prompt}}})
	ss.update(ctx, acpsdk.SessionUpdate{SessionInfoUpdate: &acpsdk.SessionSessionInfoUpdate{Title: &title}})
}
