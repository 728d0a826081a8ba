package session

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentls/agentls/edits"
)

// A FileRevert is one file of a revert, planned: what undoing the run's
// changes on the file as it is now gives.
type FileRevert struct {
	Path, Name string
	Changes    []Change // the run's, in the order it made them
	Exists     bool
	Current    string // the file now
	Target     string // the file with the run's changes undone
	// Remove says the run created the file and undoing it leaves nothing:
	// the file is to be deleted.
	Remove bool
	// Skipped are the parts of the run's changes the user changed since:
	// they are left as the user left them (lines of the run's text).
	Skipped []edits.LineSpan
	// Outside says the file is not in the session's workspace folder: it
	// is left alone.
	Outside bool
}

// inside reports whether path is in the folder root.
func inside(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && filepath.IsAbs(path) && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// PlanRevert plans the revert of changes (a run's, from
// [Writer.Revertable]) on the files as read returns them now; root is the
// session's workspace folder, and a change of a file outside it (a session
// file edited by hand) is never touched. Each file's
// changes are undone the last first, each by rebasing its inverse (after
// → before) onto the text: the user's typing since is kept, and the parts
// of a change the user changed since are skipped, never overwritten.
func PlanRevert(root string, changes []Change, read func(path string) (text string, exists bool, err error)) ([]FileRevert, error) {
	var files []*FileRevert
	byPath := map[string]*FileRevert{}
	for _, c := range changes {
		f := byPath[c.Path]
		if f == nil {
			f = &FileRevert{Path: c.Path, Name: c.Name}
			byPath[c.Path] = f
			files = append(files, f)
		}
		f.Changes = append(f.Changes, c)
	}
	out := make([]FileRevert, len(files))
	for i, f := range files {
		if !inside(root, f.Path) {
			f.Outside = true
			out[i] = *f
			continue
		}
		text, exists, err := read(f.Path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		f.Current, f.Exists = text, exists
		for j := len(f.Changes) - 1; j >= 0; j-- {
			c := f.Changes[j]
			var skipped []edits.LineSpan
			text, skipped = edits.RebaseSome(c.After, c.Before, text)
			f.Skipped = append(f.Skipped, skipped...)
		}
		f.Target = text
		f.Remove = f.Changes[0].Create && text == "" && len(f.Skipped) == 0
		out[i] = *f
	}
	return out, nil
}

// Settled is the file's outcome when there is nothing to propose for it
// (it is gone, already as it was, or the user changed all the run did);
// ok is false when it needs a proposal.
func (f FileRevert) Settled() (rf RevertedFile, ok bool) {
	rf.Name = f.Name
	switch {
	case f.Outside:
		rf.Outcome, rf.Message = Failed, "outside the session's workspace folder: left alone"
	case !f.Exists && f.Changes[0].Create:
		rf.Outcome, rf.Message = Deleted, "already deleted"
	case !f.Exists:
		rf.Outcome, rf.Message = Conflict, "deleted since the run"
	case f.Target == f.Current && !f.Remove && len(f.Skipped) > 0:
		rf.Outcome, rf.Message = Conflict, "you have changed every line the run changed: "+Spans(f.Skipped)+" left as you changed "+them(f.Skipped)
	case f.Target == f.Current && !f.Remove:
		rf.Outcome, rf.Message = Reverted, "already as it was before the run"
	default:
		return rf, false
	}
	return rf, true
}

// Applied is the file's outcome once its revert was applied: deleted when
// the file was, emptied when it was to be deleted and could only be
// emptied, reverted otherwise (in part when parts were skipped, or kept).
func (f FileRevert) Applied(deleted, kept bool) RevertedFile {
	rf := RevertedFile{Name: f.Name, Outcome: Reverted}
	switch {
	case deleted:
		rf.Outcome = Deleted
	case f.Remove:
		rf.Outcome, rf.Message = Emptied, "the editor cannot delete files, so it is emptied: delete it yourself"
	case len(f.Skipped) > 0:
		rf.Message = "in part: " + Spans(f.Skipped) + " left as you changed " + them(f.Skipped)
	}
	if kept {
		rf.Message = strings.TrimPrefix(rf.Message+"; in part: you kept part of the run's change", "; ")
	}
	return rf
}

// Summary is a revert's line for the user.
func Summary(runID string, files []RevertedFile) string {
	done, partial := 0, false
	for _, f := range files {
		if f.Done() {
			done++
		}
		partial = partial || strings.Contains(f.Message, "in part")
	}
	switch {
	case done == 0:
		return fmt.Sprintf("Nothing of run %s was reverted: %s.", runID, Outcomes(files))
	case done < len(files) || partial:
		return fmt.Sprintf("Reverted run %s in part: %s.", runID, Outcomes(files))
	}
	return fmt.Sprintf("Reverted run %s: %s.", runID, Outcomes(files))
}

// Outcomes lists files and what became of them: "a.go reverted, b.go
// conflict (…)".
func Outcomes(files []RevertedFile) string {
	parts := make([]string, len(files))
	for i, f := range files {
		parts[i] = f.Name + " " + f.Outcome
		if f.Message != "" {
			parts[i] += " (" + f.Message + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// Spans names lines: "line 3", "lines 5-7", "line 3 and lines 5-7".
func Spans(ss []edits.LineSpan) string {
	parts := make([]string, len(ss))
	for i, sp := range ss {
		if sp.End-sp.Start <= 1 {
			parts[i] = fmt.Sprintf("line %d", sp.Start)
		} else {
			parts[i] = fmt.Sprintf("lines %d-%d", sp.Start, sp.End-1)
		}
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

func them(ss []edits.LineSpan) string {
	if len(ss) == 1 && ss[0].End-ss[0].Start <= 1 {
		return "it"
	}
	return "them"
}
