package acp

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
	"github.com/agentls/agentls/contract"
	"github.com/agentls/agentls/runner"
	"github.com/agentls/agentls/workspace"
)

// A session is one conversation of the client in one folder: its
// workspace, its policy engine (whose "always" answers last as long as the
// session), its mode and model, and the turn under way.
type session struct {
	id     string
	srv    *Server
	ws     *workspace.Workspace
	root   string
	engine *policy.Engine
	// kept says the session is kept in the host's store (its id is the
	// store's): its turns continue one conversation, across processes.
	kept bool

	// turn is held by the turn under way: a session runs one at a time.
	turn chan struct{}

	// settings are the user's, with the client's MCP servers.
	settings contract.Settings

	mu     sync.Mutex
	mode   policy.Mode
	model  string
	cancel context.CancelFunc // the turn under way's; nil between turns
	// notices are what the next turn tells the user first (bad settings,
	// MCP servers not used).
	notices []string
	told    map[string]bool // the notices told
}

// newSession opens a session in the client's folder cwd.
func (s *Server) newSession(ctx context.Context, p acpsdk.NewSessionRequest) (acpsdk.NewSessionResponse, error) {
	ss, err := s.openSession(p.Cwd, p.McpServers, func(root string) (string, error) {
		if store := s.cfg.Host.Sessions; store != nil {
			// Kept from the start, so that the id the client holds is the
			// one session/load takes back; a session that never ran is
			// deleted when it closes.
			return store.Create(root, "")
		}
		return newSessionID(), nil
	})
	if err != nil {
		return acpsdk.NewSessionResponse{}, err
	}
	modes, options := ss.state()
	return acpsdk.NewSessionResponse{SessionId: acpsdk.SessionId(ss.id), Modes: modes, ConfigOptions: options}, nil
}

// openSession makes a session in cwd, its id given by id (from the
// workspace folder's root), and keeps it.
func (s *Server) openSession(cwd string, servers []acpsdk.McpServer, id func(root string) (string, error)) (*session, error) {
	s.mu.Lock()
	ready := s.ready
	s.mu.Unlock()
	if !ready {
		return nil, rpcError(codeInvalidRequest, "send initialize first")
	}
	if !filepath.IsAbs(cwd) {
		return nil, rpcError(codeInvalidParams, "cwd must be an absolute path, not %q", cwd)
	}
	ws, err := workspace.New(cwd)
	if err != nil {
		return nil, rpcError(codeInvalidParams, "cwd: %v", err)
	}
	mode, err := policy.ParseMode(s.cfg.Settings.ApprovalMode)
	if err != nil {
		mode = policy.ModeDefault // the settings' problems say so
	}
	root := ws.Roots()[0]
	sid, err := id(root)
	if err != nil {
		return nil, err
	}
	ss := &session{id: sid, srv: s, ws: ws, root: root, engine: policy.New(s.cfg.PolicyFile), kept: s.cfg.Host.Sessions != nil,
		turn: make(chan struct{}, 1), mode: mode, model: s.cfg.Settings.Model, settings: s.cfg.Settings}
	for _, p := range s.cfg.Problems {
		ss.notices = append(ss.notices, "settings: "+p)
	}
	if err := ss.engine.Load([]string{ss.root}); err != nil {
		msg := "policy rules ignored: " + strings.ReplaceAll(err.Error(), "\n", "; ")
		ss.once(msg)
		ss.notices = append(ss.notices, msg)
	}
	if note := untrustedNote(ss.engine, ss.root); note != "" {
		ss.notices = append(ss.notices, note)
	}
	if s.cfg.Host.MCP != nil {
		var problems []string
		ss.settings, problems = withClientServers(s.cfg.Settings, servers)
		ss.notices = append(ss.notices, problems...)
	} else if names := serverNames(servers); len(names) > 0 {
		ss.notices = append(ss.notices, fmt.Sprintf("this agentls runs no MCP servers; not connected: %s", strings.Join(names, ", ")))
	}
	s.mu.Lock()
	if old := s.sessions[ss.id]; old != nil {
		old.cancelTurn() // loaded again: this one replaces it
	}
	s.sessions[ss.id] = ss
	s.mu.Unlock()
	return ss, nil
}

// untrustedNote says what the folder's own configuration would switch on
// if the user trusted it, and how to; "" when there is nothing to say.
func untrustedNote(eng *policy.Engine, root string) string {
	st, err := eng.TrustState(root)
	if err != nil || st.Trusted {
		return ""
	}
	lines := runner.TrustSummary(st)
	if len(lines) == 0 {
		return ""
	}
	return fmt.Sprintf("this folder's configuration (.agentls/policy.toml, .agentls/settings.json) is not in force: you have not trusted it as it is; it would %s. `agentls trust --workspace %s` in a terminal shows it and asks.",
		strings.Join(lines, "; "), root)
}

func serverNames(servers []acpsdk.McpServer) []string {
	var names []string
	for _, m := range servers {
		switch {
		case m.Stdio != nil:
			names = append(names, m.Stdio.Name)
		case m.Http != nil:
			names = append(names, m.Http.Name)
		case m.Sse != nil:
			names = append(names, m.Sse.Name)
		case m.Acp != nil:
			names = append(names, m.Acp.Name)
		}
	}
	return names
}

func newSessionID() string {
	b := make([]byte, 12)
	rand.Read(b)
	return "sess_" + hex.EncodeToString(b)
}

// begin waits until the session runs no turn (or ctx ends), then holds it
// for a new one, cancelled by cancelTurn; end releases it.
func (ss *session) begin(ctx context.Context) (turnCtx context.Context, end func(), err error) {
	select {
	case ss.turn <- struct{}{}:
	case <-ctx.Done():
		return nil, nil, ctx.Err()
	}
	turnCtx, cancel := context.WithCancel(ctx)
	ss.mu.Lock()
	ss.cancel = cancel
	ss.mu.Unlock()
	return turnCtx, func() {
		cancel()
		ss.mu.Lock()
		ss.cancel = nil
		ss.mu.Unlock()
		<-ss.turn
	}, nil
}

// cancelTurn stops the turn under way, if any.
func (ss *session) cancelTurn() {
	ss.mu.Lock()
	cancel := ss.cancel
	ss.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// takeNotices returns the notices not told yet.
func (ss *session) takeNotices() []string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	n := ss.notices
	ss.notices = nil
	return n
}

// once reports whether a notice is new to the session, and remembers it.
func (ss *session) once(msg string) bool {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.told[msg] {
		return false
	}
	if ss.told == nil {
		ss.told = make(map[string]bool)
	}
	ss.told[msg] = true
	return true
}

func (ss *session) currentMode() policy.Mode {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.mode
}

func (ss *session) currentModel() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.model
}

// update sends the client one session/update. It is sent even after the
// turn is cancelled: the final statuses go out before the prompt's answer.
func (ss *session) update(ctx context.Context, u acpsdk.SessionUpdate) {
	err := ss.srv.client().SessionUpdate(context.WithoutCancel(ctx), acpsdk.SessionNotification{SessionId: acpsdk.SessionId(ss.id), Update: u})
	if err != nil {
		ss.srv.log.Debug("acp: session/update not sent", "err", err)
	}
}

// The approval modes, as the client shows them.
var modes = []struct {
	mode        policy.Mode
	name, about string
}{
	{policy.ModeDefault, "Default", "Every change is shown as a diff and written only when you approve it; commands ask first."},
	{policy.ModeAutoEdit, "Auto edit", "Changes are written without asking (you still see each diff); commands ask first."},
	{policy.ModePlan, "Plan", "Read-only: the agent reads and answers, changes nothing and runs no command."},
}

// models are the model choices offered: routing, then the current
// defaults; the settings' model joins them when it is another.
func models(settings string) []string {
	list := []string{agent.ModelAuto, agent.DefaultFastModel, agent.DefaultStrongModel, agent.DefaultClassifierModel}
	if !slices.Contains(list, settings) && settings != "" {
		list = append(list, settings)
	}
	return list
}

// Config option ids.
const (
	optionMode  = "mode"
	optionModel = "model"
)

// state is the session's modes and config options, as the client shows
// them: the mode both ways (config options supersede modes; clients of
// either kind see the same), the model as a config option of category
// model.
func (ss *session) state() (*acpsdk.SessionModeState, []acpsdk.SessionConfigOption) {
	ss.mu.Lock()
	mode, model := ss.mode, ss.model
	ss.mu.Unlock()
	state := &acpsdk.SessionModeState{CurrentModeId: acpsdk.SessionModeId(mode)}
	var modeValues acpsdk.SessionConfigSelectOptionsUngrouped
	for _, m := range modes {
		about := m.about
		state.AvailableModes = append(state.AvailableModes, acpsdk.SessionMode{Id: acpsdk.SessionModeId(m.mode), Name: m.name, Description: &about})
		modeValues = append(modeValues, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m.mode), Name: m.name, Description: &about})
	}
	var modelValues acpsdk.SessionConfigSelectOptionsUngrouped
	for _, m := range models(ss.srv.cfg.Settings.Model) {
		name := m
		var about *string
		if m == agent.ModelAuto {
			name, about = "Auto", ptr("Each run goes to a fast or a strong model, as a classifier judges the task.")
		}
		modelValues = append(modelValues, acpsdk.SessionConfigSelectOption{Value: acpsdk.SessionConfigValueId(m), Name: name, Description: about})
	}
	modeOpt := acpsdk.NewSessionConfigOptionSelect(acpsdk.SessionConfigValueId(mode), acpsdk.SessionConfigSelectOptions{Ungrouped: &modeValues})
	modeOpt.Select.Id, modeOpt.Select.Name = optionMode, "Mode"
	modeOpt.Select.Category = ptr(acpsdk.SessionConfigOptionCategoryMode)
	modeOpt.Select.Description = ptr("How changes and commands are approved.")
	modelOpt := acpsdk.NewSessionConfigOptionSelect(acpsdk.SessionConfigValueId(model), acpsdk.SessionConfigSelectOptions{Ungrouped: &modelValues})
	modelOpt.Select.Id, modelOpt.Select.Name = optionModel, "Model"
	modelOpt.Select.Category = ptr(acpsdk.SessionConfigOptionCategoryModel)
	modelOpt.Select.Description = ptr("The Gemini model of the next turns.")
	return state, []acpsdk.SessionConfigOption{modeOpt, modelOpt}
}

// setMode switches the session's approval mode (session/set_mode); the
// turn under way goes on under its mode, but its changes follow the new
// one (propose.go).
func (s *Server) setMode(ctx context.Context, p acpsdk.SetSessionModeRequest) (acpsdk.SetSessionModeResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	if err := ss.setMode(string(p.ModeId)); err != nil {
		return acpsdk.SetSessionModeResponse{}, err
	}
	_, options := ss.state()
	ss.update(ctx, acpsdk.SessionUpdate{ConfigOptionUpdate: &acpsdk.SessionConfigOptionUpdate{ConfigOptions: options}})
	return acpsdk.SetSessionModeResponse{}, nil
}

// setConfigOption sets the mode or the model (session/set_config_option)
// and answers every option's value.
func (s *Server) setConfigOption(ctx context.Context, p acpsdk.SetSessionConfigOptionRequest) (acpsdk.SetSessionConfigOptionResponse, error) {
	if p.ValueId == nil {
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "agentls has no boolean config options")
	}
	ss, err := s.session(p.ValueId.SessionId)
	if err != nil {
		return acpsdk.SetSessionConfigOptionResponse{}, err
	}
	value := string(p.ValueId.Value)
	switch p.ValueId.ConfigId {
	case optionMode:
		if err := ss.setMode(value); err != nil {
			return acpsdk.SetSessionConfigOptionResponse{}, err
		}
		ss.update(ctx, acpsdk.SessionUpdate{CurrentModeUpdate: &acpsdk.SessionCurrentModeUpdate{CurrentModeId: acpsdk.SessionModeId(value)}})
	case optionModel:
		if !slices.Contains(models(s.cfg.Settings.Model), value) {
			return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "model %q is not one of %s", value, strings.Join(models(s.cfg.Settings.Model), ", "))
		}
		ss.mu.Lock()
		ss.model = value
		ss.mu.Unlock()
	default:
		return acpsdk.SetSessionConfigOptionResponse{}, rpcError(codeInvalidParams, "unknown config option %q: agentls has %s and %s", p.ValueId.ConfigId, optionMode, optionModel)
	}
	_, options := ss.state()
	return acpsdk.SetSessionConfigOptionResponse{ConfigOptions: options}, nil
}

func (ss *session) setMode(id string) error {
	mode, err := policy.ParseMode(id)
	if err != nil || id == "" {
		return rpcError(codeInvalidParams, "mode %q is not one of plan, default, autoEdit", id)
	}
	ss.mu.Lock()
	ss.mode = mode
	ss.mu.Unlock()
	return nil
}

func ptr[T any](v T) *T { return &v }
