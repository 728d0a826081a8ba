package tools

import (
	"cmp"
	"context"
	"fmt"
	"strings"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/edits"
)

// shown returns, for the paths a resolved path leads through (see
// resolveLinks), the path, its name for the user and the model, and the real
// file a change to it writes. When the path leads through a symlink to
// another file, the name says so ("a.md → docs/b.md"): the user approves
// the file that will change, not the name the model gave.
func (s *state) shown(hops []string) (path, name, target string) {
	path, target = hops[0], hops[len(hops)-1]
	name = s.env.FS.Rel(path)
	if target != path {
		name += " → " + s.env.FS.Rel(target)
	}
	return path, name, target
}

// propose sends a change to the user and tells the model what became of it.
func propose(ctx context.Context, st *state, call *agent.Call, ch agent.Change) (agent.Result, error) {
	d, err := call.Propose(ctx, st.env.Proposer, ch)
	if err != nil {
		return agent.Result{}, err
	}
	stat := edits.DiffStat(ch.Old, ch.New)
	switch d.Outcome {
	case agent.OutcomeApplied:
		st.markRead(cmp.Or(ch.Target, ch.Path)) // the model knows the new content
		msg := fmt.Sprintf("The user accepted the change; %s is updated (%s).", ch.Name, stat)
		if d.Final != "" && d.Final != ch.New {
			msg = fmt.Sprintf("The user accepted the change to %s with modifications; read the file again before changing it further.", ch.Name)
			if d.Message != "" {
				msg += "\n" + d.Message
			}
		}
		msg += afterChange(st.env.FS, ch.Name, d.Diagnostics)
		return agent.Result{Output: msg, Display: fmt.Sprintf("Changed %s (%s)", ch.Name, stat)}, nil
	case agent.OutcomeStaged:
		st.markRead(cmp.Or(ch.Target, ch.Path))
		return agent.Result{Output: fmt.Sprintf("Staged the change to %s (%s): your reads see it, and it is proposed to the user with the run's other changes when you call complete_task.", ch.Name, stat),
			Display: fmt.Sprintf("Staged %s (%s)", ch.Name, stat)}, nil
	case agent.OutcomeRejected:
		msg := fmt.Sprintf("The user rejected the change to %s; the file is unchanged.", ch.Name)
		if d.Message != "" {
			msg += " Reason: " + sentence(d.Message)
		}
		msg += " Do not propose the same change again."
		return agent.Result{Output: msg, IsError: true, Display: "Rejected change to " + ch.Name}, nil
	case agent.OutcomeConflict:
		// The front end's reason when it gives one (a symlink that now
		// leads elsewhere, a file deleted meanwhile), said as it is.
		why := cmp.Or(strings.TrimSuffix(d.Message, "."), ch.Name+" changed since you read it")
		return agent.Result{Output: "conflict: " + why + "; read it again.",
			IsError: true, Display: "Conflict on " + ch.Name}, nil
	default:
		msg := fmt.Sprintf("The editor could not apply the change to %s", ch.Name)
		if d.Message != "" {
			msg += ": " + d.Message
		}
		return agent.Result{Output: msg, IsError: true, Display: "Failed to change " + ch.Name}, nil
	}
}

// Limits of what the model is told of the editor's problems after a
// change: the few that matter most.
const (
	maxNewFiles  = 3
	maxNewInFile = 5
	maxGone      = 5
)

// afterChange tells the model what the editor's diagnostics showed after
// its change to name was applied: the problems that are new, errors first,
// with their lines; the ones it no longer shows; or that none came in time.
func afterChange(fs agent.FS, name string, da *agent.DiagnosticsAfter) string {
	if da == nil {
		return ""
	}
	var b strings.Builder
	if !da.InTime {
		fmt.Fprintf(&b, "\nThe editor had not reported the problems of the new text of %s after %s; call get_diagnostics later to see them.", name, da.Wait)
	}
	if len(da.New) > 0 {
		b.WriteString("\nThe editor shows new problems since the change:\n")
		b.WriteString(strings.TrimSuffix(formatDiagnostics(fs, da.New, maxNewFiles, maxNewInFile), "\n"))
	}
	if n := problems(da.Gone); n > 0 {
		fmt.Fprintf(&b, "\nThe editor no longer shows %s:", count(n, "problem", "problems"))
		shown := 0
		for _, path := range worstFirst(da.Gone) {
			for _, d := range bySeverity(da.Gone[path]) {
				if shown == maxGone {
					fmt.Fprintf(&b, "\n  (%d more)", n-shown)
					return b.String()
				}
				fmt.Fprintf(&b, "\n  %s: %s: %s", fs.Rel(path), cmp.Or(d.Severity, "problem"), problem(d))
				shown++
			}
		}
	}
	if da.InTime && b.Len() == 0 {
		b.WriteString("\nThe editor shows no new problems.")
	}
	return b.String()
}

// problems is the number of problems in byFile.
func problems(byFile map[string][]agent.Diagnostic) int {
	n := 0
	for _, ds := range byFile {
		n += len(ds)
	}
	return n
}

// sentence ends a message of the user or the editor with a full stop, so
// that the text after it starts a new sentence.
func sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.ContainsAny(s[len(s)-1:], ".!?") {
		return s
	}
	return s + "."
}
