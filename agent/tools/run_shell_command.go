package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
)

//go:embed run_shell_command.md
var runShellCommandDoc string

// DefaultShellTimeout limits a shell command when Env.ShellTimeout is 0.
const DefaultShellTimeout = 2 * time.Minute

type shellArgs struct {
	Command     string `json:"command" jsonschema:"the command line, run with bash -c"`
	DirPath     string `json:"dir_path,omitempty" jsonschema:"the folder to run it in, relative to the workspace root (default: the root)"`
	Description string `json:"description,omitempty" jsonschema:"what the command does and why, in a few words, for the user who approves it"`
}

// shellTool is run_shell_command. It implements agent.Approvable: every
// call is allowed by a policy rule or by the user, for its exact command and
// folder, before it runs.
type shellTool struct {
	*agent.Func[shellArgs]
	st *state
}

func runShellCommand(st *state) agent.Tool {
	return shellTool{agent.NewFunc(policy.ShellTool, runShellCommandDoc, func(ctx context.Context, call *agent.Call, a shellArgs) (agent.Result, error) {
		dir, err := st.shellDir(a)
		if err != nil {
			return agent.Errorf("%v", err), nil
		}
		unsaved := st.unsaved()
		res, err := st.runShell(ctx, a.Command, dir)
		return withUnsaved(res, unsaved), err
	}).WithKind(agent.KindExecute), st}
}

// Approval implements agent.Approvable: the command, and the folder it
// would run in. Calls that would be refused anyway are refused here, before
// the user is asked.
func (t shellTool) Approval(args json.RawMessage) (agent.Approval, error) {
	var a shellArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return agent.Approval{}, fmt.Errorf("invalid arguments for %s: %v", policy.ShellTool, err)
	}
	dir, err := t.st.shellDir(a)
	if err != nil {
		return agent.Approval{}, err
	}
	return agent.Approval{Tool: policy.ShellTool, Command: a.Command, Dir: dir, Description: a.Description,
		Rule: strings.Join(policy.Prefixes(a.Command), ", ")}, nil
}

// Locks implements agent.Locker: a command may change anything, so it runs
// after the calls before it that change files and before those after it.
func (shellTool) Locks(args json.RawMessage) []string { return []string{"*"} }

func (shellTool) Describe(args json.RawMessage) string {
	var a shellArgs
	json.Unmarshal(args, &a)
	if a.Command == "" {
		return ""
	}
	return "Running `" + shortCommand(a.Command) + "`"
}

// shellDir checks a call's arguments and returns the folder to run in,
// every symlink evaluated.
func (st *state) shellDir(a shellArgs) (string, error) {
	if strings.TrimSpace(a.Command) == "" {
		return "", errors.New("command is empty; give the command line to run")
	}
	hops, err := st.resolveLinks(policy.ShellTool, cmp.Or(a.DirPath, "."), reading)
	if err != nil {
		return "", err
	}
	// The folder it really runs in, which the user approves: a dir_path
	// that is a symlink does not hide where the command runs.
	dir := hops[len(hops)-1]
	if _, err := st.env.FS.ReadDir(dir); err != nil {
		return "", fmt.Errorf("dir_path %q is not a folder of the workspace", a.DirPath)
	}
	if err := st.staysInside(a.Command, dir); err != nil {
		return "", err
	}
	return dir, nil
}

// staysInside refuses a command line whose cd (or pushd) commands lead out
// of the workspace, as far as their literal arguments tell: "cd .. && rm -rf
// x" from the root, "cd /", "cd ~". Arguments the shell would expand are
// left to the approval.
func (st *state) staysInside(command, dir string) error {
	cwd := dir
	for _, call := range policy.ParseCommand(command).Runs {
		words := call.Words
		if words[0].Text != "cd" && words[0].Text != "pushd" {
			continue
		}
		words = slices.DeleteFunc(words[1:], func(w policy.Word) bool { return strings.HasPrefix(w.Text, "-") && w.Text != "-" })
		target := policy.Word{Text: "~"}
		if len(words) > 0 {
			target = words[0]
		}
		if target.Text == "-" || !target.Static && !strings.HasPrefix(target.Text, "~") {
			continue
		}
		part := call.String()
		outside := fmt.Errorf("`%s` leaves the workspace; commands run inside it (use dir_path for another folder of the workspace)", part)
		if !target.Static {
			return outside // ~: the home folder
		}
		p := target.Text
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		abs, err := st.env.FS.Resolve(p)
		if err != nil {
			return outside
		}
		cwd = abs
	}
	return nil
}

// runShell runs command in dir and reports its exit code and output. The
// run's end kills the command and every process it started, and stops the
// run; a timeout does the same and tells the model.
func (st *state) runShell(ctx context.Context, command, dir string) (agent.Result, error) {
	timeout := cmp.Or(st.env.ShellTimeout, DefaultShellTimeout)
	environ := st.env.Environ
	if environ == nil {
		environ = os.Environ()
	}
	out := &capped{max: maxShellOutput}
	r := execShell(ctx, command, dir, shellEnviron(environ, st.env.Secrets), timeout, out)
	if err := ctx.Err(); err != nil {
		return agent.Result{}, context.Cause(ctx)
	}
	if r.err != nil {
		return agent.Errorf("cannot run the command: %v", r.err), nil
	}
	var b strings.Builder
	short := shortCommand(command)
	display := fmt.Sprintf("Ran `%s` (exit %d)", short, r.exit)
	switch {
	case r.timedOut:
		fmt.Fprintf(&b, "The command timed out after %s and was stopped, with every process it started.\n", timeout)
		display = fmt.Sprintf("`%s` timed out", short)
	case r.signal != "":
		fmt.Fprintf(&b, "The command was killed by a signal (%s).\n", r.signal)
		display = fmt.Sprintf("`%s` was killed", short)
	default:
		fmt.Fprintf(&b, "Exit code: %d\n", r.exit)
	}
	if text := out.String(); text == "" {
		b.WriteString("Output: (none)\n")
	} else {
		b.WriteString("Output:\n")
		b.WriteString(text)
		if !strings.HasSuffix(text, "\n") {
			b.WriteString("\n")
		}
	}
	return agent.Result{Output: b.String(), IsError: r.timedOut, Display: display}, nil
}

// shortCommand is a command's first line, cut for progress displays.
func shortCommand(c string) string {
	c = strings.TrimSpace(c)
	if i := strings.IndexByte(c, '\n'); i >= 0 {
		c = c[:i] + " …"
	}
	if r := []rune(c); len(r) > 60 {
		c = string(r[:59]) + "…"
	}
	return c
}

// shellRun is what became of a shell command.
type shellRun struct {
	exit     int
	signal   string // the signal that killed it, if one did
	timedOut bool
	err      error // it did not start
}

// errShellTimeout is the cancellation cause of a command that ran too long.
var errShellTimeout = errors.New("shell command timed out")

// shellVars make commands fit for a run with no terminal: no pager, no
// password prompt.
var shellVars = []string{"AGENTLS=1", "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0"}

// shellEnviron is the environment of shell commands: base without the
// variables that hold secrets (policy.SecretVar, the filter traces use too,
// or a value holding one of secrets), plus shellVars.
func shellEnviron(base, secrets []string) []string {
	var env []string
	for _, kv := range base {
		name, value, _ := strings.Cut(kv, "=")
		switch {
		case policy.SecretVar(name, value),
			slices.ContainsFunc(secrets, func(s string) bool { return len(s) >= 8 && strings.Contains(value, s) }),
			slices.ContainsFunc(shellVars, func(v string) bool { return strings.HasPrefix(v, name+"=") }):
			continue
		}
		env = append(env, kv)
	}
	return append(env, shellVars...)
}
