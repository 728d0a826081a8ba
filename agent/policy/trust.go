package policy

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/skill"
)

// A workspace's configuration comes with the repository, and a repository
// can be anyone's: what it would switch on — its policy file's allow rules,
// the MCP servers its settings file would start — takes effect only where
// the user trusts it. Trust is given on purpose ([Engine.Trust], after the
// user saw what it switches on) and is bound to the content of those files
// (TrustedFiles): the file trusted-folders beside the user's policy file
// holds one line per folder, "sha256:<hex> <folder>", and a folder whose
// files changed (a git pull) needs trust again. Saving an "always allow"
// answer to a workspace's file keeps the trust it had, and trusts a folder
// whose configuration held nothing of its own to switch on.

// hashPrefix starts a trusted-folders line.
const hashPrefix = "sha256:"

// WorkspaceSettingsFile is the settings file of the workspace folder root,
// <root>/.agentls/settings.json.
func WorkspaceSettingsFile(root string) string {
	return filepath.Join(root, ".agentls", "settings.json")
}

// TrustedFiles are the files of the workspace folder root that trust
// covers: what in the folder can grant authority.
func TrustedFiles(root string) []string {
	return []string{WorkspaceFile(root), WorkspaceSettingsFile(root)}
}

// folderHash is the trust hash of the folder root's configuration as it is
// now: "" when it has none of the TrustedFiles.
func folderHash(root string) (string, error) {
	h := sha256.New()
	found := false
	for _, path := range TrustedFiles(root) {
		data, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			fmt.Fprintf(h, "%s absent\x00", filepath.Base(path))
			continue
		case err != nil:
			return "", err
		}
		found = true
		fmt.Fprintf(h, "%s %d\x00", filepath.Base(path), len(data))
		h.Write(data)
	}
	// The skills, each by its path in the folder: a folder without any
	// hashes as it did before skills counted.
	for _, path := range SkillFiles(root) {
		data, err := os.ReadFile(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // a dangling link: no skill is loaded from it
		}
		if err != nil {
			return "", err
		}
		found = true
		rel, _ := filepath.Rel(root, path)
		fmt.Fprintf(h, "%s %d\x00", filepath.ToSlash(rel), len(data))
		h.Write(data)
	}
	if !found {
		return "", nil
	}
	return hashPrefix + hex.EncodeToString(h.Sum(nil)), nil
}

// SkillFiles are the SKILL.md files of the workspace folder root's skills
// (agent/skill): trust covers them too, for a skill steers the agent as an
// allow rule does.
func SkillFiles(root string) []string {
	var out []string
	for _, d := range skill.Dirs {
		found, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(d), "*", skill.FileName))
		out = append(out, found...) // sorted within a folder; the folders in order
	}
	return out
}

// trustFile is the list of trusted folders, "" when there is no user file.
func (e *Engine) trustFile() string {
	if e.userFile == "" {
		return ""
	}
	return filepath.Join(filepath.Dir(e.userFile), "trusted-folders")
}

// loadTrust reads the trusted folders. Lines of other forms (a folder
// without a hash, as older versions wrote) trust nothing. e.mu is held.
func (e *Engine) loadTrust() error {
	e.trusted = map[string]string{}
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
		hash, folder, ok := strings.Cut(strings.TrimSpace(sc.Text()), " ")
		if ok && strings.HasPrefix(hash, hashPrefix) && filepath.IsAbs(folder) {
			e.trusted[filepath.Clean(folder)] = hash
		}
	}
	return sc.Err()
}

// A TrustState tells what trusting a workspace folder would switch on.
type TrustState struct {
	Folder string
	File   string // the folder's policy file
	// Settings is the folder's settings file when it has one: trusting the
	// folder lets it start the MCP servers it names.
	Settings string
	// Hash identifies the content of the folder's configuration files as
	// read ("" when it has none); [Engine.Trust] trusts this content only.
	Hash string
	// Allows are the file's allow rules: what runs without asking once the
	// folder is trusted.
	Allows []Rule
	// Skills are the folder's skills, by their SKILL.md files relative to
	// it: what the agent may load once the folder is trusted.
	Skills []string
	// Trusted reports whether the user trusts this content.
	Trusted bool
}

// TrustState reads the configuration of the workspace folder root now and
// tells whether the user trusts it, and what it would switch on.
func (e *Engine) TrustState(root string) (TrustState, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.trustState(root)
}

// ErrChanged reports a configuration that changed after the user saw it.
var ErrChanged = errors.New("the folder's configuration changed since it was shown; look at it again")

// Trust trusts the configuration of the workspace folder root with the
// content hash, from a [TrustState] the user was shown.
func (e *Engine) Trust(root, hash string) error {
	root = filepath.Clean(root)
	now, err := folderHash(root)
	if err != nil {
		return fmt.Errorf("trust %s: %w", root, err)
	}
	if now == "" {
		return fmt.Errorf("trust %s: the folder has no .agentls/policy.toml, .agentls/settings.json or skills to trust", root)
	}
	if now != hash {
		return fmt.Errorf("trust %s: %w", root, ErrChanged)
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.trust(root, hash)
}

// trust records that the user trusts root's policy file with content hash.
// e.mu is held.
func (e *Engine) trust(root, hash string) error {
	if e.trusted == nil {
		e.trusted = map[string]string{}
	}
	e.trusted[root] = hash
	path := e.trustFile()
	if path == "" {
		return nil
	}
	folders := make([]string, 0, len(e.trusted))
	for f := range e.trusted {
		folders = append(folders, f)
	}
	slices.Sort(folders)
	var b strings.Builder
	b.WriteString("# Workspace folders whose .agentls/policy.toml and .agentls/settings.json the user trusts, with their hash.\n")
	for _, f := range folders {
		fmt.Fprintf(&b, "%s %s\n", e.trusted[f], f)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(b.String()), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// inForce reports whether a rule applies: a workspace file's allow rules
// need the user to trust that file as it is now.
func (e *Engine) inForce(r *Rule) bool {
	if r.Source != SourceWorkspace || r.Decision != agent.VerdictAllow {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	root := filepath.Clean(r.Dir)
	for _, f := range e.files {
		if f.root == root {
			return f.hash != "" && e.trusted[root] == f.hash
		}
	}
	return false
}

// An UntrustedError reports a rule saved to a workspace's policy file that
// the user does not trust: the folder's configuration switches on things of
// its own (allow rules, a settings file, skills), which the user has not
// seen. The
// rule stays in force for the session; later sessions have it once the user
// trusts the folder.
type UntrustedError struct {
	Folder   string
	Allows   []Rule   // the file's allow rules besides the saved one
	Settings string   // the folder's settings file, if it has one
	Skills   []string // the folder's skills (their SKILL.md files)
}

func (e *UntrustedError) Error() string {
	var own []string
	if len(e.Allows) > 0 {
		names := make([]string, len(e.Allows))
		for i, r := range e.Allows {
			names[i] = Describe(r)
		}
		own = append(own, "allow rules of its own: "+strings.Join(names, "; "))
	}
	if e.Settings != "" {
		own = append(own, "a settings file that may start MCP servers ("+e.Settings+")")
	}
	if len(e.Skills) > 0 {
		own = append(own, "skills ("+strings.Join(e.Skills, ", ")+")")
	}
	return fmt.Sprintf("the rule is saved, but later sessions use it only once you trust %s, whose configuration has %s",
		e.Folder, strings.Join(own, ", and "))
}

// Describe says what a rule matches and decides, in one line.
func Describe(r Rule) string {
	var what []string
	if len(r.ToolName) > 0 {
		what = append(what, "tools "+strings.Join(r.ToolName, ", "))
	}
	if r.Subagent != "" {
		what = append(what, "agent "+r.Subagent)
	}
	if len(r.CommandPrefix) > 0 {
		what = append(what, "commands starting with "+quoteList(r.CommandPrefix))
	}
	if r.CommandRegex != "" {
		what = append(what, "commands matching /"+r.CommandRegex+"/")
	}
	if r.ArgsPattern != "" {
		what = append(what, "arguments matching /"+r.ArgsPattern+"/")
	}
	if len(r.PathPattern) > 0 {
		what = append(what, "secret files "+strings.Join(r.PathPattern, ", "))
	}
	if r.AllowRedirection {
		what = append(what, "with redirections")
	}
	if len(what) == 0 {
		what = append(what, "every tool call")
	}
	return fmt.Sprintf("%s %s (%s)", r.Decision, strings.Join(what, ", "), r.ID)
}

// checkWorkspaceFile refuses to write the policy file at path of the
// workspace folder root through a symbolic link: .agentls must stay in the
// workspace and policy.toml must not be a link.
func checkWorkspaceFile(root, path string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if errors.Is(err, os.ErrNotExist) {
		return nil // a new folder: there is no link to follow
	}
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if fi, err := os.Lstat(dir); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || !within(real, realRoot) {
			return fmt.Errorf("%s is a symbolic link out of the workspace; agentls does not write through it", dir)
		}
	}
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return fmt.Errorf("%s is a symbolic link; agentls does not write through it", path)
	}
	return nil
}
