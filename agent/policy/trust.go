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
)

// A workspace's policy file comes with the repository, and a repository can
// be anyone's: its allow rules take effect only where the user trusts that
// file. Trust is given on purpose ([Engine.Trust], after the user saw the
// file's allow rules) and is bound to the file's content: the file
// trusted-folders beside the user's policy file holds one line per folder,
// "sha256:<hex of the policy file> <folder>", and a file whose content
// changed (a git pull) needs trust again. Saving an "always allow" answer
// to a workspace's file keeps the trust it had, and trusts a file that held
// no allow rules of its own: every allow rule in it is then the user's.

// hashPrefix starts a trusted-folders line.
const hashPrefix = "sha256:"

// contentHash is the trust hash of a policy file's content.
func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hashPrefix + hex.EncodeToString(sum[:])
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
	// Hash identifies the file's content as read ("" when there is no
	// file); [Engine.Trust] trusts this content only.
	Hash string
	// Allows are the file's allow rules: what runs without asking once the
	// folder is trusted.
	Allows []Rule
	// Trusted reports whether the user trusts this content.
	Trusted bool
}

// Trust reads the policy file of the workspace folder root now and tells
// whether the user trusts it, and what its allow rules are.
func (e *Engine) TrustState(root string) (TrustState, error) {
	if _, err := os.Stat(WorkspaceFile(root)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return TrustState{Folder: filepath.Clean(root), File: WorkspaceFile(root)}, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.trustState(root), nil
}

// ErrChanged reports a policy file that changed after the user saw it.
var ErrChanged = errors.New("the policy file changed since it was shown; look at it again")

// Trust trusts the policy file of the workspace folder root with the
// content hash, from a [TrustState] the user was shown.
func (e *Engine) Trust(root, hash string) error {
	root = filepath.Clean(root)
	data, err := os.ReadFile(WorkspaceFile(root))
	if err != nil {
		return fmt.Errorf("trust %s: %w", root, err)
	}
	if contentHash(data) != hash {
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
	b.WriteString("# Workspace folders whose .agentls/policy.toml the user trusts, with that file's hash.\n")
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
// the user does not trust: the file has allow rules of its own, which the
// user has not seen. The rule stays in force for the session; later
// sessions have it once the user trusts the folder.
type UntrustedError struct {
	Folder string
	Allows []Rule // the file's allow rules besides the saved one
}

func (e *UntrustedError) Error() string {
	names := make([]string, len(e.Allows))
	for i, r := range e.Allows {
		names[i] = Describe(r)
	}
	return fmt.Sprintf("the rule is saved, but later sessions use it only once you trust %s, whose policy file has allow rules of its own: %s",
		e.Folder, strings.Join(names, "; "))
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
