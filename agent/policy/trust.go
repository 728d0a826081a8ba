package policy

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/agent"
)

// A workspace's policy file comes with the repository, and a repository can
// be anyone's: its allow rules take effect only in folders the user trusts.
// The trusted folders are listed, one absolute path per line, in the file
// trusted-folders beside the user's policy file. Saving an "always allow"
// rule to a workspace's file (the user's own choice) trusts that folder.

// trustFile is the list of trusted folders, "" when there is no user file.
func (e *Engine) trustFile() string {
	if e.userFile == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(e.userFile), "trusted-folders")
}

// loadTrust reads the trusted folders. e.mu is held.
func (e *Engine) loadTrust() error {
	e.trusted = map[string]bool{}
	path := e.trustFile()
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); line != "" && !strings.HasPrefix(line, "#") {
			e.trusted[filepath.Clean(line)] = true
		}
	}
	return sc.Err()
}

// trust adds root to the trusted folders. e.mu is held.
func (e *Engine) trust(root string) error {
	root = filepath.Clean(root)
	if e.trusted == nil {
		e.trusted = map[string]bool{}
	}
	if e.trusted[root] {
		return nil
	}
	e.trusted[root] = true
	path := e.trustFile()
	if path == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(root + "\n")
	return errors.Join(err, f.Close())
}

// inForce reports whether a rule applies: a workspace file's allow rules
// need the folder to be trusted.
func (e *Engine) inForce(r *Rule) bool {
	if r.Source != SourceWorkspace || r.Decision != agent.VerdictAllow {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.trusted[filepath.Clean(r.Dir)]
}

// Trusts reports whether the user trusts the workspace folder root: its
// policy file's allow rules apply, and its skills are loaded.
func (p Policy) Trusts(root string) bool {
	if p.e == nil {
		return false
	}
	p.e.mu.Lock()
	defer p.e.mu.Unlock()
	return p.e.trusted[filepath.Clean(root)]
}
