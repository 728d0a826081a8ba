package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"google.golang.org/genai"

	"github.com/agentls/agentls/lsp/lsptest"
)

// transcript renders what the server sent the editor, in order, as lines
// that do not depend on timing: progress begin and end (not the coalesced
// reports), messages, questions and edits with the editor's answers,
// selected agentls/event types, cancelled requests; then what the model was
// told, request by request. Paths are relative to the scenario ($WORK) or
// the cache ($CACHE); run ids read main-ID.
func (r *scenarioRun) transcript(header []string) string {
	var b strings.Builder
	for _, h := range header {
		b.WriteString(h + "\n")
	}
	reqs := r.gem.Requests()
	if len(reqs) > 0 && len(reqs[0].Contents) > 0 {
		b.WriteString("task:\n")
		writeIndented(&b, "  | ", contentText(reqs[0].Contents[0]))
	}
	if len(reqs) > 0 && reqs[0].SystemInstruction != nil {
		if skills := skillList(contentText(reqs[0].SystemInstruction)); skills != "" {
			b.WriteString("skills:\n")
			writeIndented(&b, "  | ", skills)
		}
	}
	methods := map[string]string{} // request id → method
	for _, m := range r.ed.Messages() {
		if m.Call {
			methods[m.ID] = m.Method
		}
		r.render(&b, m, methods)
	}
	for i, req := range reqs {
		if i == 0 || len(req.Contents) == 0 {
			continue
		}
		for _, part := range req.Contents[len(req.Contents)-1].Parts {
			if fr := part.FunctionResponse; fr != nil {
				fmt.Fprintf(&b, "model %d < %s ", i+1, fr.Name)
				writeResponse(&b, fr.Response)
			}
		}
	}
	if r.sc.flags.ProgressRate {
		r.checkRate(&b)
	}
	r.play.mu.Lock()
	for _, rv := range r.play.reverted {
		b.WriteString(rv + "\n")
	}
	r.play.mu.Unlock()
	return r.normalize(b.String())
}

// skillList is the list of the system prompt's skills section, "" when it
// has none.
func skillList(system string) string {
	_, after, ok := strings.Cut(system, "\n# Skills\n")
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, line := range strings.Split(after, "\n") {
		if strings.HasPrefix(line, "#") {
			break
		}
		if strings.HasPrefix(line, "- ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// humanHunks numbers hunks from 1, as users and the model see them.
func humanHunks(idx []int) []int {
	out := make([]int, len(idx))
	for i, h := range idx {
		out[i] = h + 1
	}
	return out
}

func (r *scenarioRun) render(b *strings.Builder, m lsptest.Message, methods map[string]string) {
	answer := func() {
		if a, ok := r.play.answerOf(m.ID); ok {
			fmt.Fprintf(b, "  > %s\n", a)
		}
	}
	switch m.Method {
	case protocol.MethodProgress:
		p := progressOf(m)
		who := "run"
		switch {
		case isSubagentToken(p.Token):
			who = "subagent"
		case !strings.HasPrefix(p.Token, "agentls/"):
			who = "run token=" + p.Token // the client's workDoneToken
		}
		switch p.Kind {
		case "begin":
			fmt.Fprintf(b, "progress begin %s %q\n", who, p.Title)
		case "end":
			fmt.Fprintf(b, "progress end %s %q\n", who, p.Message)
		}
	case protocol.MethodWindowShowMessage:
		var p protocol.ShowMessageParams
		protocol.Unmarshal(m.Params, &p)
		fmt.Fprintf(b, "showMessage %s %q\n", messageType(p.Type), p.Message)
	case protocol.MethodWindowLogMessage:
		fmt.Fprintf(b, "log %q\n", logText(m))
	case protocol.MethodWindowShowMessageRequest:
		var p protocol.ShowMessageRequestParams
		protocol.Unmarshal(m.Params, &p)
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		fmt.Fprintf(b, "ask %q [%s]\n", p.Message, strings.Join(titles, " | "))
		answer()
	case protocol.MethodWorkspaceApplyEdit:
		renderApplyEdit(b, m)
		answer()
	case protocol.MethodWindowShowDocument:
		var p protocol.ShowDocumentParams
		protocol.Unmarshal(m.Params, &p)
		fmt.Fprintf(b, "showDocument %s\n", p.URI)
		if data, err := os.ReadFile(p.URI.FsPath()); err == nil {
			writeIndented(b, "  | ", string(data))
		}
	case protocol.MethodWorkspaceConfiguration:
		fmt.Fprintf(b, "configuration %s\n", m.Params)
	case protocol.MethodCancelRequest:
		var p struct {
			ID json.Number `json:"id"`
		}
		json.Unmarshal(m.Params, &p)
		fmt.Fprintf(b, "cancelRequest %s\n", methods[p.ID.String()])
	case contract.MethodEvent:
		renderEvent(b, m)
	}
}

func renderApplyEdit(b *strings.Builder, m lsptest.Message) {
	var p protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(m.Params, &p); err != nil {
		fmt.Fprintf(b, "applyEdit (undecodable: %v)\n", err)
		return
	}
	label := ""
	if p.Label != nil {
		label = *p.Label
	}
	fmt.Fprintf(b, "applyEdit %q\n", label)
	writeEdits := func(tes []protocol.TextEdit, ids []string) {
		for i, te := range tes {
			ann := ""
			if ids[i] != "" {
				ann = " [" + ids[i] + "]"
			}
			fmt.Fprintf(b, "    @%d:%d-%d:%d %q%s\n", te.Range.Start.Line, te.Range.Start.Character, te.Range.End.Line, te.Range.End.Character, te.NewText, ann)
		}
	}
	for _, dc := range p.Edit.DocumentChanges {
		switch c := dc.(type) {
		case *protocol.TextDocumentEdit:
			v := "null"
			if c.TextDocument.Version != nil {
				v = strconv.Itoa(int(*c.TextDocument.Version))
			}
			fmt.Fprintf(b, "  edit %s version %s\n", c.TextDocument.URI, v)
			var tes []protocol.TextEdit
			var ids []string
			for _, el := range c.Edits {
				switch x := el.(type) {
				case *protocol.TextEdit:
					tes, ids = append(tes, *x), append(ids, "")
				case *protocol.AnnotatedTextEdit:
					tes, ids = append(tes, x.TextEdit), append(ids, string(x.AnnotationID))
				}
			}
			writeEdits(tes, ids)
		case *protocol.CreateFile:
			fmt.Fprintf(b, "  create %s [%s]\n", c.URI, c.AnnotationID)
		case *protocol.DeleteFile:
			fmt.Fprintf(b, "  delete %s [%s]\n", c.URI, c.AnnotationID)
		default:
			fmt.Fprintf(b, "  %T\n", dc)
		}
	}
	var uris []string
	for u := range p.Edit.Changes {
		uris = append(uris, string(u))
	}
	sort.Strings(uris)
	for _, u := range uris {
		fmt.Fprintf(b, "  changes %s\n", u)
		tes := p.Edit.Changes[uri.URI(u)]
		writeEdits(tes, make([]string, len(tes)))
	}
	var ids []string
	for id := range p.Edit.ChangeAnnotations {
		ids = append(ids, string(id))
	}
	sort.Strings(ids)
	for _, id := range ids {
		a := p.Edit.ChangeAnnotations[protocol.ChangeAnnotationIdentifier(id)]
		desc := ""
		if a.Description != nil {
			desc = *a.Description
		}
		fmt.Fprintf(b, "  annotation %s %q needsConfirmation=%v %q\n", id, a.Label, a.NeedsConfirmation != nil && *a.NeedsConfirmation, desc)
	}
}

// event is the part of an agentls/event the transcript shows.
type event struct {
	Type string `json:"type"`
	Text string `json:"text"` // a warning's
	Call *struct {
		Name    string `json:"name"`
		Display string `json:"display"`
	} `json:"call"`
	Edit *struct {
		Name     string `json:"name"`
		Added    int    `json:"added"`
		Deleted  int    `json:"deleted"`
		Create   bool   `json:"create"`
		Outcome  string `json:"outcome"`
		Message  string `json:"message"`
		Rejected []int  `json:"rejectedHunks"`
	} `json:"edit"`
	Subagent *struct {
		Agent string `json:"agent"`
		Task  string `json:"task"`
		End   *struct {
			Reason string `json:"reason"`
		} `json:"end"`
	} `json:"subagent"`
	Approval *struct {
		Command string `json:"command"`
		Allowed *bool  `json:"allowed"`
	} `json:"approval"`
	End *struct {
		Reason string `json:"reason"`
		Result string `json:"result"`
		Error  string `json:"error"`
	} `json:"end"`
	Proposal *contract.ProposalReport `json:"proposal"`
	Inner    *struct {
		Type string `json:"type"`
	} `json:"inner"`
}

func eventOf(m lsptest.Message) event {
	var e event
	json.Unmarshal(m.Params, &e)
	return e
}

func renderEvent(b *strings.Builder, m lsptest.Message) {
	e := eventOf(m)
	switch e.Type {
	case "run_start":
		b.WriteString("event run_start\n")
	case "warning":
		fmt.Fprintf(b, "event warning %q\n", e.Text)
	case "tool_call":
		fmt.Fprintf(b, "event tool_call %s %q\n", e.Call.Name, e.Call.Display)
	case "edit_proposed":
		fmt.Fprintf(b, "event edit_proposed %s +%d -%d create=%v\n", e.Edit.Name, e.Edit.Added, e.Edit.Deleted, e.Edit.Create)
	case "edit_decided":
		fmt.Fprintf(b, "event edit_decided %s %s rejected hunks=%v\n", e.Edit.Name, e.Edit.Outcome, humanHunks(e.Edit.Rejected))
		if e.Edit.Message != "" {
			writeIndented(b, "  | ", e.Edit.Message)
		}
	case "approval_requested", "approval_decided":
		allowed := ""
		if e.Approval.Allowed != nil {
			allowed = fmt.Sprintf(" allowed=%v", *e.Approval.Allowed)
		}
		fmt.Fprintf(b, "event %s %q%s\n", e.Type, e.Approval.Command, allowed)
	case "subagent_start":
		fmt.Fprintf(b, "event subagent_start %s %q\n", e.Subagent.Agent, e.Subagent.Task)
	case "subagent_end":
		reason := ""
		if e.Subagent.End != nil {
			reason = e.Subagent.End.Reason
		}
		fmt.Fprintf(b, "event subagent_end %s %s\n", e.Subagent.Agent, reason)
	case "run_end":
		said := e.End.Result + e.End.Error
		if e.End.Result != "" && e.End.Error != "" {
			said = e.End.Result + " | " + e.End.Error
		}
		fmt.Fprintf(b, "event run_end %s %q\n", e.End.Reason, firstLine(said))
		if p := e.Proposal; p != nil {
			fmt.Fprintf(b, "  proposal %s %q\n", p.Outcome, p.Summary)
			for _, f := range p.Files {
				fmt.Fprintf(b, "    %s %s +%d -%d create=%v %q\n", f.Name, f.Outcome, f.Added, f.Deleted, f.Create, firstLine(f.Message))
			}
		}
	}
}

// checkRate checks the bound on $/progress reports of the run: at most ten
// a second (measured generously over the whole run), and the last message
// reported is the last one the run had.
func (r *scenarioRun) checkRate(b *strings.Builder) {
	var reports []string
	for _, m := range r.ed.Messages() {
		if m.Method == protocol.MethodProgress && progressOf(m).Kind == "report" && !isSubagentToken(progressOf(m).Token) {
			reports = append(reports, progressOf(m).Message)
		}
	}
	elapsed := time.Since(r.start)
	if limit := 2 + int(elapsed/(100*time.Millisecond)); len(reports) > limit {
		r.t.Errorf("%d progress reports in %v, want at most %d", len(reports), elapsed, limit)
	}
	if len(reports) > 0 {
		fmt.Fprintf(b, "progress last report %q\n", reports[len(reports)-1])
	}
}

var (
	runIDPattern    = regexp.MustCompile(`main-[0-9a-f]{8}`)
	revertIDPattern = regexp.MustCompile(`revert-[0-9a-f]{8}`)
	sessionPattern  = regexp.MustCompile(`s-[0-9a-f]{8}`)
	// usagePattern is the usage line of a progress end: the fake server
	// estimates tokens from the request, whose system prompt holds the
	// date.
	usagePattern = regexp.MustCompile(`\\n[0-9.]+k? tokens, (\$[0-9.]+|cost unknown)`)
)

func (r *scenarioRun) normalize(s string) string {
	s = strings.ReplaceAll(s, string(uriOf(r.cache)), "$CACHE")
	s = strings.ReplaceAll(s, string(uriOf(r.dir)), "$WORK")
	s = strings.ReplaceAll(s, r.cache, "$CACHE")
	s = strings.ReplaceAll(s, r.dir, "$WORK")
	if !r.sc.flags.Usage {
		s = usagePattern.ReplaceAllString(s, `\n<usage>`)
	}
	s = revertIDPattern.ReplaceAllString(s, "revert-ID")
	s = sessionPattern.ReplaceAllString(s, "s-ID")
	return runIDPattern.ReplaceAllString(s, "main-ID")
}

func uriOf(path string) protocol.URI { return protocol.URI(uri.File(path)) }

type progressValue struct {
	Token   string
	Kind    string `json:"kind"`
	Title   string `json:"title"`
	Message string `json:"message"`
}

func progressOf(m lsptest.Message) progressValue {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value progressValue   `json:"value"`
	}
	json.Unmarshal(m.Params, &p)
	v := p.Value
	v.Token = strings.Trim(string(p.Token), `"`)
	return v
}

func logText(m lsptest.Message) string {
	var p protocol.LogMessageParams
	protocol.Unmarshal(m.Params, &p)
	return p.Message
}

func messageType(t protocol.MessageType) string {
	switch t {
	case protocol.MessageTypeError:
		return "error"
	case protocol.MessageTypeWarning:
		return "warning"
	case protocol.MessageTypeInfo:
		return "info"
	}
	return "log"
}

func contentText(c *genai.Content) string {
	var s string
	for _, p := range c.Parts {
		s += p.Text
	}
	return s
}

func writeResponse(b *strings.Builder, resp map[string]any) {
	key := "output"
	if _, ok := resp["error"]; ok {
		key = "error"
	}
	text := fmt.Sprint(resp[key])
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	fmt.Fprintf(b, "%s: %s\n", key, lines[0])
	for _, l := range lines[1:] {
		fmt.Fprintf(b, "  | %s\n", l)
	}
}

func writeIndented(b *strings.Builder, prefix, text string) {
	for _, l := range strings.Split(strings.TrimRight(text, "\n"), "\n") {
		b.WriteString(strings.TrimRight(prefix+l, " ") + "\n")
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// parseRange parses "line:char-line:char" (0-based, as LSP).
func parseRange(t *testing.T, s string) protocol.Range {
	t.Helper()
	var r protocol.Range
	if _, err := fmt.Sscanf(s, "%d:%d-%d:%d", &r.Start.Line, &r.Start.Character, &r.End.Line, &r.End.Character); err != nil {
		t.Fatalf("range %q: %v", s, err)
	}
	return r
}
