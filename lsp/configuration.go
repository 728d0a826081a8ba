package lsp

import (
	"strings"

	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// configState is where the settings come from. The settings are always
// recomputed as the defaults, then the user's settings file, then
// initializationOptions, then the last workspace/configuration answer (or
// didChangeConfiguration push) on top.
type configState struct {
	file     settingsFile    // the user's settings.json
	initOpts json.RawMessage // initializationOptions
	pulled   json.RawMessage
	reported map[string]bool // problems shown already, so a re-pull does not repeat them

	ready     chan struct{} // closed once the first pull is done, or none will come
	readyOnce sync.Once
}

func (c *configState) init() {
	c.ready = make(chan struct{})
	c.reported = make(map[string]bool)
}

func (c *configState) markReady() { c.readyOnce.Do(func() { close(c.ready) }) }

// configWait bounds how long a run waits for the first configuration pull.
const configWait = 2 * time.Second

// configSection is the workspace/configuration section of agentls's
// settings.
const configSection = "agentls"

// A settingsFile is the user's settings file as last read.
type settingsFile struct {
	path    string
	mod     time.Time
	size    int64
	raw     json.RawMessage
	problem string // it could not be read
}

// refresh reads the file again when it changed, and reports whether it
// did.
func (f *settingsFile) refresh() bool {
	if f.path == "" {
		return false
	}
	fi, err := os.Stat(f.path)
	var mod time.Time
	var size int64 = -1
	if err == nil {
		mod, size = fi.ModTime(), fi.Size()
	}
	if mod.Equal(f.mod) && size == f.size {
		return false
	}
	f.mod, f.size = mod, size
	f.raw, f.problem = nil, ""
	raw, err := contract.ReadSettingsFile(f.path)
	if err != nil {
		f.problem = err.Error()
	}
	f.raw = raw
	return true
}

// refreshSettings applies the settings again when the user's settings
// file changed since it was read.
func (s *Server) refreshSettings(ctx context.Context) {
	s.mu.Lock()
	changed := s.config.file.refresh()
	s.mu.Unlock()
	if changed {
		s.applySettings(ctx)
	}
}

// applySettings recomputes the settings from their sources and shows the
// problems, unless they were shown already. s.mu must not be held.
func (s *Server) applySettings(ctx context.Context) {
	s.mu.Lock()
	settings := contract.DefaultSettings()
	var problems []string
	if f := &s.config.file; f.problem != "" {
		problems = append(problems, f.problem)
	}
	for _, p := range settings.Merge(s.config.file.raw) {
		problems = append(problems, s.config.file.path+": "+p)
	}
	for _, p := range settings.Merge(s.config.initOpts) {
		problems = append(problems, "initializationOptions: "+p)
	}
	for _, p := range settings.Merge(s.config.pulled) {
		problems = append(problems, "configuration: "+p)
	}
	s.settings = settings
	var fresh []string
	for _, p := range problems {
		if !s.config.reported[p] {
			s.config.reported[p] = true
			fresh = append(fresh, p)
		}
	}
	s.mu.Unlock()
	if len(fresh) > 0 {
		s.warnSettings(ctx, fresh)
	}
}

// pullConfiguration asks the client for section "agentls" in the
// background (a notification handler must not wait for the client), then
// applies it. Without client support it only marks the settings ready.
func (s *Server) pullConfiguration() {
	if !s.clientCaps().configuration {
		s.config.markReady()
		return
	}
	ok := s.goTask(func() {
		defer s.config.markReady()
		ctx := s.root
		res, err := s.client.Configuration(ctx, &protocol.ConfigurationParams{
			Items: []protocol.ConfigurationItem{{Section: ptr(configSection)}},
		})
		if err != nil {
			s.log.Warn("workspace/configuration failed", "err", err)
			return
		}
		var raw json.RawMessage
		if len(res) > 0 {
			raw = json.RawMessage(res[0])
		}
		s.mu.Lock()
		s.config.pulled = raw
		s.mu.Unlock()
		s.applySettings(ctx)
	})
	if !ok {
		s.config.markReady()
	}
}

func (s *Server) DidChangeConfiguration(ctx context.Context, params *protocol.DidChangeConfigurationParams) error {
	if s.clientCaps().configuration {
		s.pullConfiguration()
		return nil
	}
	// A client without workspace/configuration pushes the settings.
	s.mu.Lock()
	s.config.pulled = json.RawMessage(params.Settings)
	s.mu.Unlock()
	s.applySettings(ctx)
	return nil
}

// settingsReady waits, briefly, for the first configuration pull, so a run
// started right after initialize uses the user's settings.
func (s *Server) settingsReady(ctx context.Context) error {
	select {
	case <-s.config.ready:
	case <-s.after(configWait):
		s.log.Warn("workspace/configuration not answered yet; using the settings known so far")
	case <-ctx.Done():
		return ctx.Err()
	}
	return nil
}

// goTask runs f in the background unless the server is closing; Serve waits
// for it.
func (s *Server) goTask(f func()) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.tasks.Go(f)
	return true
}

// warnSettings tells the user which settings were not understood.
func (s *Server) warnSettings(ctx context.Context, problems []string) {
	msg := "agentls: settings ignored: " + strings.Join(problems, "; ")
	s.log.Warn(msg)
	s.client.ShowMessage(context.WithoutCancel(ctx), &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning, Message: msg})
}
