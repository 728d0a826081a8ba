// Package policy decides which tool calls run, which are refused and which
// need the user's approval, from rules in TOML files in the spirit of Gemini
// CLI's policy engine, the approval mode, and the user's "always allow"
// answers of the session.
//
// Vocabulary:
//   - a rule matches calls (by tool, subagent, arguments, shell command) and
//     decides them: allow, deny or ask;
//   - a rule's source ranks it: default < workspace (.agentls/policy.toml
//     of a workspace folder) < user (os.UserConfigDir()/agentls/policy.toml);
//     within a source the higher priority wins, and of equal ones the
//     stricter decision;
//   - a session rule is an "always allow" answer: it allows calls that the
//     other rules would ask about, and nothing they deny;
//   - the mode is the run's approval mode: plan (read-only), default,
//     autoEdit.
package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agentls/agentls/agent"
)

// A Mode is an approval mode.
type Mode string

// Approval modes.
const (
	// ModePlan is read-only: no edit or shell tool is offered, and calls of
	// them are denied.
	ModePlan Mode = "plan"
	// ModeDefault proposes edits for confirmation and asks before shell
	// commands.
	ModeDefault Mode = "default"
	// ModeAutoEdit sends edits without asking for confirmation; shell
	// commands still ask.
	ModeAutoEdit Mode = "autoEdit"
)

// ParseMode reads an approval mode; "" is ModeDefault.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeDefault, nil
	case ModePlan, ModeDefault, ModeAutoEdit:
		return m, nil
	}
	return "", fmt.Errorf("approval mode %q is not one of plan, default, autoEdit", s)
}

// defaults are the rules every engine starts from. They decide by the kind
// each tool declares (agent.Kinded), never by a list of names, so that a
// new tool is classified where it is defined.
func defaults() []*Rule {
	rs := []*Rule{
		{ID: "default:read-only", Name: "default: read-only tools run", kinds: []agent.Kind{agent.KindRead}, Decision: agent.VerdictAllow},
		{ID: "default:edits", Name: "default: edits are proposed to the user", kinds: []agent.Kind{agent.KindEdit}, Decision: agent.VerdictAllow},
		{ID: "default:shell", Name: "default: shell commands need approval", kinds: []agent.Kind{agent.KindExecute}, Decision: agent.VerdictAsk},
		{ID: "default:fetch", Name: "default: web fetches need approval", kinds: []agent.Kind{agent.KindFetch}, Decision: agent.VerdictAsk},
	}
	for _, r := range rs {
		r.Source = SourceDefault
		if err := r.compile(); err != nil {
			panic(err) // Inv: the defaults are valid
		}
	}
	return rs
}

// An Engine holds the rules of a session: the defaults, the rules of the
// policy files, and the session's "always allow" rules. It is safe for
// concurrent use; [Engine.WithMode] gives the [agent.Policy] of a run.
type Engine struct {
	userFile string
	defaults []*Rule

	mu      sync.Mutex
	files   []*ruleFile // the user's, then the workspace folders', in order
	session []*Rule
	nextID  int
	trusted map[string]string // folder → hash of the policy file the user trusts (trust.go)
}

// A ruleFile is a policy file as last read.
type ruleFile struct {
	path   string
	source Source
	root   string // the workspace folder, for a workspace file
	mod    time.Time
	size   int64
	exists bool
	hash   string // of the workspace folder's configuration, at the last Load
	rules  []*Rule
}

// New returns an engine with the default rules. userFile is the user's
// policy file ("" for none; see [UserFile]); [Engine.Load] reads it and the
// workspace files.
func New(userFile string) *Engine {
	return &Engine{userFile: userFile, defaults: defaults()}
}

// Load reads the user's policy file and those of the workspace folders
// roots, each again only when it changed since it was last read. A rule
// with errors is left out; a file that is not valid TOML keeps the rules it
// had before (none, the first time). The errors, which name the file and the
// line, are returned joined.
func (e *Engine) Load(roots []string) error {
	want := []*ruleFile{}
	if e.userFile != "" {
		want = append(want, &ruleFile{path: e.userFile, source: SourceUser})
	}
	for _, root := range roots {
		want = append(want, &ruleFile{path: WorkspaceFile(root), source: SourceWorkspace, root: root})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for i, f := range want {
		if old := e.file(f.path); old != nil {
			want[i] = old
		}
		if err := want[i].refresh(); err != nil {
			errs = append(errs, err)
		}
		if f := want[i]; f.source == SourceWorkspace {
			// The settings file may change with the policy file unchanged.
			var err error
			if f.hash, err = folderHash(f.root); err != nil {
				errs = append(errs, err)
			}
		}
	}
	e.files = want
	if err := e.loadTrust(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// file returns the policy file at path as last read, nil if it is not read.
// e.mu is held.
func (e *Engine) file(path string) *ruleFile {
	i := slices.IndexFunc(e.files, func(f *ruleFile) bool { return f.path == path })
	if i < 0 {
		return nil
	}
	return e.files[i]
}

// refresh reads f again if it changed on disk.
func (f *ruleFile) refresh() error {
	fi, err := os.Stat(f.path)
	if errors.Is(err, os.ErrNotExist) {
		f.exists, f.rules = false, nil
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	if f.exists && fi.ModTime().Equal(f.mod) && fi.Size() == f.size {
		return nil
	}
	data, err := os.ReadFile(f.path)
	if err != nil {
		return fmt.Errorf("%s: %w", f.path, err)
	}
	rules, err := ParseFile(f.path, string(data), f.source)
	f.exists, f.mod, f.size = true, fi.ModTime(), fi.Size()
	if rules == nil && err != nil {
		return err // not TOML: keep the rules of the last good read
	}
	for _, r := range rules {
		if f.root != "" {
			r.Dir = f.root
		}
	}
	f.rules = rules
	return err
}

// ruleSet returns the rules in force and the session rules. The rules
// themselves are never changed once made, so they may be read without the
// lock.
func (e *Engine) ruleSet() (rules, session []*Rule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	rules = slices.Clone(e.defaults)
	for _, f := range e.files {
		rules = append(rules, f.rules...)
	}
	return rules, slices.Clone(e.session)
}

// WithMode returns the policy of a run in mode m.
func (e *Engine) WithMode(m Mode) Policy { return Policy{e: e, mode: m} }

// Policy is an engine's rules applied in one approval mode. It implements
// agent.Policy.
type Policy struct {
	e    *Engine
	mode Mode
}

// Mode is the policy's approval mode.
func (p Policy) Mode() Mode { return p.mode }

// Check implements agent.Policy: the rule of the highest rank that matches
// decides; when it asks, a session rule that matches allows. A call no rule
// matches is asked about (denied in plan mode). In plan mode no rule allows
// a call that changes files or runs programs (see [planRefuses]).
func (p Policy) Check(c agent.PolicyCall) agent.PolicyDecision {
	if p.mode == ModePlan && planRefuses(c) {
		return agent.PolicyDecision{Verdict: agent.VerdictDeny, Message: "plan mode is read-only"}
	}
	rules, session := p.e.ruleSet()
	args := sync.OnceValue(func() string { return stableJSON(c.Args) })
	cmd := sync.OnceValue(func() Command {
		if c.Approval == nil {
			return Command{}
		}
		return ParseCommand(c.Approval.Command)
	})
	var best *Rule
	for _, r := range rules {
		if r.PathPattern == nil && r.matches(&c, p.mode, args, cmd) && r.outranks(best) && p.e.inForce(r) {
			best = r
		}
	}
	if best == nil {
		switch {
		case p.mode == ModePlan:
			return agent.PolicyDecision{Verdict: agent.VerdictDeny, Message: "plan mode is read-only"}
		case c.Trusted:
			// An MCP server the user's own settings trust: no rule asks.
			return agent.PolicyDecision{Verdict: agent.VerdictAllow, Rule: TrustedRule}
		}
	}
	d := agent.PolicyDecision{Verdict: agent.VerdictAsk}
	if best != nil {
		d = agent.PolicyDecision{Verdict: best.Decision, Rule: best.Label()}
		if best.Decision == agent.VerdictDeny {
			d.Message = best.DenyMessage
		}
	}
	if d.Verdict == agent.VerdictAsk {
		// What would be asked about (an MCP call no rule names too) an
		// always answer of the session may allow.
		for _, r := range session {
			if r.matches(&c, p.mode, args, cmd) {
				return agent.PolicyDecision{Verdict: agent.VerdictAllow, Rule: r.Label()}
			}
		}
	}
	return d
}

// planRefuses reports whether plan mode, which is read-only, refuses a call
// whatever the rules say: edits, programs, and calls of tools of no kind
// that need approval. Reads and fetches stay.
func planRefuses(c agent.PolicyCall) bool {
	switch c.Kind {
	case agent.KindRead, agent.KindFetch:
		return false
	case agent.KindEdit, agent.KindExecute:
		return true
	}
	return c.Approval != nil
}

// TrustedRule names what allowed a call of a trusted tool that no rule
// decides.
const TrustedRule = "trust: true in your settings"

// TrustsFolder reports whether the user trusts the workspace folder root
// as it is now (its policy file, see [Engine.TrustState]): the folder's own
// configuration (an MCP server of its .agentls/settings.json) may then
// start.
func (p Policy) TrustsFolder(root string) bool {
	if p.e == nil {
		return false
	}
	st, err := p.e.TrustState(root)
	return err == nil && st.Trusted
}

// AllowsPath reports whether a rule with a pathPattern allows tool to use
// the secret-looking file at rel, a workspace-relative path. Without one,
// secret files are refused.
func (p Policy) AllowsPath(tool, rel string) bool {
	rules, _ := p.e.ruleSet()
	var best *Rule
	for _, r := range rules {
		if r.matchesPath(tool, rel, p.mode) && r.outranks(best) && p.e.inForce(r) {
			best = r
		}
	}
	return best != nil && best.Decision == agent.VerdictAllow
}

// Rules lists the rules of the policy files and of the session, highest
// rank first; the defaults are left out.
func (e *Engine) Rules() []Rule {
	rules, session := e.ruleSet()
	var out []Rule
	for _, r := range append(rules, session...) {
		if r.Source != SourceDefault {
			out = append(out, *r)
		}
	}
	slices.SortStableFunc(out, func(a, b Rule) int {
		if a.Source == SourceSession || b.Source == SourceSession {
			return boolCmp(a.Source == SourceSession, b.Source == SourceSession)
		}
		return b.rank() - a.rank()
	})
	return out
}

func boolCmp(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return -1
	}
	return 1
}

// ErrNotSession reports a rule that only its file can change.
var ErrNotSession = errors.New("not a session rule")

// Remove revokes the session rule with the given ID. Rules of policy files
// are changed by editing their file.
func (e *Engine) Remove(id string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := slices.IndexFunc(e.session, func(r *Rule) bool { return r.ID == id })
	if i < 0 {
		return e.notSession(id)
	}
	e.session = slices.Delete(e.session, i, i+1)
	return nil
}

// notSession explains why id names no session rule. e.mu is held.
func (e *Engine) notSession(id string) error {
	for _, f := range e.files {
		for _, r := range f.rules {
			if r.ID == id {
				return fmt.Errorf("rule %s: %w; edit %s to change it", id, ErrNotSession, f.path)
			}
		}
	}
	return fmt.Errorf("no rule %q", id)
}

// Save moves the session rule with the given ID into the policy file at
// path (a workspace's [WorkspaceFile], or the user's file), so that later
// sessions have it too. The rule then comes from the file; Save returns it
// as read back. A workspace's file is never written through a symbolic
// link that leads out of its folder. Saving keeps the folder's trust, and
// trusts a file that held no allow rules before; otherwise the rule stays
// in the session too and Save returns an [*UntrustedError].
func (e *Engine) Save(id, path string) (Rule, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	i := slices.IndexFunc(e.session, func(r *Rule) bool { return r.ID == id })
	if i < 0 {
		return Rule{}, e.notSession(id)
	}
	r := *e.session[i]
	r.Dir = "" // a workspace file's rules are bound to its folder
	user := path == e.userFile
	root := filepath.Dir(filepath.Dir(path))
	var before TrustState
	if !user {
		if err := checkWorkspaceFile(root, path); err != nil {
			return Rule{}, fmt.Errorf("save rule %s: %w", id, err)
		}
		var err error
		if before, err = e.trustState(root); err != nil {
			return Rule{}, fmt.Errorf("save rule %s: %w", id, err)
		}
	}
	if err := appendRule(path, &r); err != nil {
		return Rule{}, fmt.Errorf("save rule %s: %w", id, err)
	}
	f := e.file(path)
	if f == nil {
		f = &ruleFile{path: path, source: SourceWorkspace, root: root}
		if user {
			f.source, f.root = SourceUser, ""
		}
		e.files = append(e.files, f)
	}
	err := f.refresh()
	if !user {
		var herr error
		f.hash, herr = folderHash(root)
		err = errors.Join(err, herr)
	}
	saved := r
	if n := len(f.rules); n > 0 {
		saved = *f.rules[n-1]
	}
	if user {
		e.session = slices.Delete(e.session, i, i+1)
		return saved, err
	}
	if !before.Trusted && (len(before.Allows) > 0 || before.Settings != "" || len(before.Skills) > 0) {
		return saved, errors.Join(err, &UntrustedError{Folder: root, Allows: before.Allows, Settings: before.Settings, Skills: before.Skills})
	}
	if terr := e.trust(root, f.hash); terr != nil {
		return saved, errors.Join(err, fmt.Errorf("save rule %s: trust the folder: %w", id, terr))
	}
	e.session = slices.Delete(e.session, i, i+1)
	return saved, err
}

// trustState is TrustState with e.mu held: the files are read now, and a
// policy file that is not valid TOML counts as holding allow rules.
func (e *Engine) trustState(root string) (TrustState, error) {
	root = filepath.Clean(root)
	st := TrustState{Folder: root, File: WorkspaceFile(root)}
	hash, err := folderHash(root)
	if err != nil || hash == "" {
		return st, err
	}
	st.Hash = hash
	st.Trusted = e.trusted[root] == st.Hash
	if _, err := os.Stat(WorkspaceSettingsFile(root)); err == nil {
		st.Settings = WorkspaceSettingsFile(root)
	}
	for _, p := range SkillFiles(root) {
		rel, _ := filepath.Rel(root, p)
		st.Skills = append(st.Skills, filepath.ToSlash(rel))
	}
	data, err := os.ReadFile(st.File)
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return st, err
	}
	rules, perr := ParseFile(st.File, string(data), SourceWorkspace)
	if rules == nil && perr != nil {
		st.Allows = []Rule{{ID: st.File, Name: "a file agentls cannot read", Decision: agent.VerdictAllow}}
	}
	for _, r := range rules {
		if r.Decision == agent.VerdictAllow {
			r.Dir = root
			st.Allows = append(st.Allows, *r)
		}
	}
	return st, nil
}

func quoteList(ss []string) string {
	var b []byte
	for i, s := range ss {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, '`')
		b = append(b, s...)
		b = append(b, '`')
	}
	return string(b)
}
