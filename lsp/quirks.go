package lsp

import (
	"encoding/json"
	"strconv"
	"strings"

	"go.lsp.dev/protocol"
)

// quirks are known ways a client departs from what its capabilities
// promise, found by running it (docs/editors.md, "What was checked"). The
// server reads them from clientInfo, in the manner of gopls's per-client
// settings.
type quirks struct {
	// confirmCannotRefuse: the client's own confirmation of annotated edits
	// answers applied:true when the user says No, so a No would reach the
	// model as an acceptance. The server asks first with its own question
	// and sends edits without annotations.
	confirmCannotRefuse bool
	// skipsStaleSilently: the client skips a versioned edit it takes for an
	// older buffer but still answers applied:true, and otherwise reports
	// its changes at once. A buffer still unchanged when the wait for its
	// didChange ends was not edited.
	skipsStaleSilently bool
}

// A knownQuirk is one row of the table: a client by its clientInfo name,
// from a version on.
type knownQuirk struct {
	name   string
	since  string // the first version with the quirk; "": every version
	quirks quirks
	// plugin: the quirk is gone when the client runs the agentls plugin
	// (it declares experimental.agentls.hunkReview and answers truthfully).
	plugin bool
}

// knownQuirks: every row that matches applies.
var knownQuirks = []knownQuirk{
	// runtime/lua/vim/lsp/util.lua, apply_text_document_edit: "Buffer …
	// newer than edits" is printed, the edit dropped, applied:true sent.
	{name: "Neovim", quirks: quirks{skipsStaleSilently: true}, plugin: true},
	// 0.12 declares changeAnnotationSupport: apply_text_edits asks Yes/No
	// with vim.fn.confirm and returns without applying on No, and the
	// workspace/applyEdit handler answers applied:true all the same.
	{name: "Neovim", since: "0.12", quirks: quirks{confirmCannotRefuse: true}, plugin: true},
}

// quirksOf finds the quirks of a client; plugin reports that it runs the
// agentls plugin.
func quirksOf(info protocol.ClientInfo, plugin bool) quirks {
	var q quirks
	version, _ := info.Version.Get()
	for _, k := range knownQuirks {
		if !strings.EqualFold(k.name, info.Name) || k.plugin && plugin || !versionAtLeast(version, k.since) {
			continue
		}
		q.confirmCannotRefuse = q.confirmCannotRefuse || k.quirks.confirmCannotRefuse
		q.skipsStaleSilently = q.skipsStaleSilently || k.quirks.skipsStaleSilently
	}
	return q
}

// versionAtLeast compares dotted versions ("0.12.4" ≥ "0.12"); since ""
// matches every version, and a version that does not parse matches only
// that.
func versionAtLeast(version, since string) bool {
	if since == "" {
		return true
	}
	v, s := versionParts(version), versionParts(since)
	if v == nil {
		return false
	}
	for i := range s {
		var n int
		if i < len(v) {
			n = v[i]
		}
		if n != s[i] {
			return n > s[i]
		}
	}
	return true
}

// versionParts reads "v0.12.4-dev+abc" as [0 12 4]; nil when it does not
// start with a number.
func versionParts(v string) []int {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			break
		}
		out = append(out, n)
	}
	return out
}

// hasPlugin reports whether the client's experimental capabilities
// announce an agentls plugin that reviews proposals hunk by hunk
// (experimental.agentls.hunkReview, docs/protocol.md).
func hasPlugin(c protocol.ClientCapabilities) bool {
	if len(c.Experimental) == 0 {
		return false
	}
	var x struct {
		Agentls struct {
			HunkReview bool `json:"hunkReview"`
		} `json:"agentls"`
	}
	return json.Unmarshal(c.Experimental, &x) == nil && x.Agentls.HunkReview
}
