package tools

import (
	"strings"

	"github.com/agentls/agentls/agent"
)

// unsaved names the files the editor holds with changes the disk does not
// have, as a shell command is about to run.
func (st *state) unsaved() []string {
	if st.env.Unsaved == nil {
		return nil
	}
	return st.env.Unsaved()
}

// withUnsaved tells the model which files the command ran without: their
// changes were in the editor, not on disk.
func withUnsaved(res agent.Result, unsaved []string) agent.Result {
	if len(unsaved) == 0 || res.Output == "" {
		return res
	}
	res.Output = "Unsaved in the editor, not seen by the command (it read them from disk): " +
		strings.Join(unsaved, ", ") + ". Ask the user to save them if the command needs their changes.\n" + res.Output
	return res
}
