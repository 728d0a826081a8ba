package lsp_test

import (
	"github.com/agentls/agentls/contract"

	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agentls/agentls/lsp/lsptest"
)

// A step is one line of a scenario's editor section. In order:
//
//	wait event <type>[/<inner>]    wait for an agentls/event of that type (and,
//	                               for subagent_activity, inner event type)
//	wait <method>                  wait for a message with that method
//	type <file> <old> <new>        the user replaces old by new in the buffer
//	cancel run|progress|subagent   agentls.cancel, or workDoneProgress/cancel of
//	                               the run's or the latest subagent's token
//	applyEdit apply|stale|late|hold
//	                               answer the next workspace/applyEdit: apply it;
//	                               answer applied and change nothing; apply it
//	                               but send didChange only at sync
//	sync <file>                    send the didChange a late edit held back
//	applyEdit reject <reason>
//	applyEdit error <code> <message>
//	applyEdit partial [reject=1,2] [edit=3:<text>]  hunks numbered from 1, as
//	                               users and the model see them
//	showMessageRequest <title>|dismiss|hold
//	showMessageRequest error <code> <message>
//	diagnostics <file> [@<version>|@none] [<diagnostic>…]
//	                               agentls/diagnostics for the file, as a plugin
//	                               sends them: at the buffer's version unless
//	                               told; each diagnostic is one word
//	                               "<line> <severity> <source>: <message>",
//	                               lines numbered from 1; none clears the list
//	tick <duration>                with "clock": "fake", end the server's waits
//	                               of that duration (once one has begun)
//	link <path> <target>           make path a symlink to target, replacing
//	                               what it was (a repository's link repointed)
//	revert                         once the run has ended (its progress too),
//	                               agentls.revert of it; the answer goes
//	                               to the transcript's end
//
// Words may be Go-quoted strings. A wait looks past what the previous wait
// found. An answer takes the next request of its method; requests beyond the
// scripted answers get the default (apply, the first action). hold leaves
// the request unanswered until the server cancels it.
type step struct {
	line  int
	words []string
}

func (s step) String() string {
	return fmt.Sprintf("editor line %d: %s", s.line, strings.Join(s.words, " "))
}

func parseSteps(src string) ([]step, error) {
	var steps []step
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", i+1, err)
		}
		steps = append(steps, step{line: i + 1, words: words})
	}
	return steps, nil
}

// splitWords splits at spaces; a word starting with a quote is a Go string.
func splitWords(line string) ([]string, error) {
	var words []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				return nil, err
			}
			w, _ := strconv.Unquote(q)
			words = append(words, w)
			line = line[len(q):]
			continue
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		w := line[:i]
		if j := strings.Index(w, ":\""); j >= 0 { // edit=0:"text with spaces"
			q, err := strconv.QuotedPrefix(line[j+1:])
			if err != nil {
				return nil, err
			}
			u, _ := strconv.Unquote(q)
			w = line[:j+1] + u
			i = j + 1 + len(q)
		}
		words = append(words, w)
		line = line[i:]
	}
	return words, nil
}

// A player plays the editor section against the running scenario.
type player struct {
	r *scenarioRun

	mu       sync.Mutex
	scripted map[string]int // method → scripted answers
	taken    map[string]int // method → requests seen
	queues   map[string]chan *pendingRequest
	answers  map[string]string // request id → the answer, for the transcript
	errs     []string
	reverted []string // what agentls.revert answered
	cursor   int      // where the next wait starts looking
	done     int      // steps played
}

type pendingRequest struct {
	ctx   context.Context
	msg   lsptest.Message
	reply chan reply
}

type reply struct {
	res any
	err error
}

var answeredMethods = []string{protocol.MethodWorkspaceApplyEdit, protocol.MethodWindowShowMessageRequest}

func newPlayer(r *scenarioRun) *player {
	p := &player{r: r, scripted: map[string]int{}, taken: map[string]int{}, queues: map[string]chan *pendingRequest{}, answers: map[string]string{}}
	for _, m := range answeredMethods {
		p.queues[m] = make(chan *pendingRequest, 64)
	}
	for _, s := range r.sc.steps {
		if m := methodOf(s.words[0]); m != "" {
			p.scripted[m]++
		}
	}
	return p
}

func methodOf(verb string) string {
	switch verb {
	case "applyEdit":
		return protocol.MethodWorkspaceApplyEdit
	case "showMessageRequest":
		return protocol.MethodWindowShowMessageRequest
	}
	return ""
}

// intercept routes the server's requests: scripted ones to the steps, the
// rest to default answers.
func (p *player) intercept(ctx context.Context, m lsptest.Message) (any, error, bool) {
	q := p.queues[m.Method]
	if q == nil {
		return nil, nil, false
	}
	p.mu.Lock()
	n := p.taken[m.Method]
	p.taken[m.Method]++
	scripted := n < p.scripted[m.Method]
	p.mu.Unlock()
	if !scripted {
		res, err, text := p.defaultAnswer(ctx, m)
		p.answer(m.ID, text+" (default)")
		return res, err, true
	}
	pr := &pendingRequest{ctx: ctx, msg: m, reply: make(chan reply, 1)}
	q <- pr
	select {
	case rep := <-pr.reply:
		return rep.res, rep.err, true
	case <-ctx.Done():
		return nil, protocol.ErrRequestCancelled, true
	}
}

func (p *player) defaultAnswer(ctx context.Context, m lsptest.Message) (any, error, string) {
	if m.Method == protocol.MethodWorkspaceApplyEdit {
		var params protocol.ApplyWorkspaceEditParams
		protocol.Unmarshal(m.Params, &params)
		res, err := p.r.ed.Apply(ctx, &params, lsptest.Answer{})
		return res, err, "apply"
	}
	var params protocol.ShowMessageRequestParams
	protocol.Unmarshal(m.Params, &params)
	if len(params.Actions) == 0 {
		return nil, nil, "dismiss"
	}
	return &params.Actions[0], nil, params.Actions[0].Title
}

func (p *player) answer(id, text string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.answers[id] = text
}

func (p *player) answerOf(id string) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.answers[id]
	return a, ok
}

func (p *player) fail(s step, format string, args ...any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.errs = append(p.errs, s.String()+": "+fmt.Sprintf(format, args...))
}

// steps plays the steps in order until they are done or ctx ends.
func (p *player) steps(ctx context.Context, steps []step) {
	for _, s := range steps {
		if err := p.step(ctx, s); err != nil {
			p.fail(s, "%v", err)
			return
		}
		p.mu.Lock()
		p.done++
		p.mu.Unlock()
	}
}

// check reports the steps that failed or were never played.
func (p *player) check() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range p.errs {
		p.r.t.Error(e)
	}
	if len(p.errs) == 0 && p.done < len(p.r.sc.steps) {
		p.r.t.Errorf("%s: not played", p.r.sc.steps[p.done])
	}
}

func (p *player) step(ctx context.Context, s step) error {
	w := s.words
	switch w[0] {
	case "wait":
		return p.wait(ctx, w[1:])
	case "type":
		if len(w) != 4 {
			return fmt.Errorf("want: type <file> <old> <new>")
		}
		u := p.r.uri(w[1])
		text, open := p.r.ed.Buffer(u)
		if !open || !strings.Contains(text, w[2]) {
			return fmt.Errorf("%s does not hold %q", w[1], w[2])
		}
		p.r.ed.Type(ctx, u, strings.Replace(text, w[2], w[3], 1))
		return nil
	case "sync":
		if len(w) != 2 {
			return fmt.Errorf("want: sync <file>")
		}
		// A send, not a wait: it happens even when the run has ended
		// meanwhile (the late didChange of an editor like eglot comes after
		// the server stopped waiting for it).
		if !p.r.ed.Sync(context.WithoutCancel(ctx), p.r.uri(w[1])) {
			return fmt.Errorf("no late edit of %s to sync", w[1])
		}
		return nil
	case "cancel":
		return p.cancel(ctx, w[1:])
	case "diagnostics":
		return p.r.sendDiagnostics(ctx, w[1:])
	case "tick":
		return p.r.tick(ctx, w[1:])
	case "applyEdit", "showMessageRequest":
		return p.answerNext(ctx, s)
	case "revert":
		return p.revert(ctx)
	case "link":
		if len(w) != 3 {
			return fmt.Errorf("want: link <path> <target>")
		}
		return p.r.link(w[1], w[2])
	}
	return fmt.Errorf("unknown step %q", w[0])
}

func (p *player) wait(ctx context.Context, w []string) error {
	var ok func(lsptest.Message) bool
	switch {
	case len(w) == 2 && w[0] == "event":
		typ, inner, _ := strings.Cut(w[1], "/") // subagent_activity/thought: a subagent's thought
		ok = func(m lsptest.Message) bool {
			if m.Method != contract.MethodEvent {
				return false
			}
			e := eventOf(m)
			return e.Type == typ && (inner == "" || e.Inner != nil && e.Inner.Type == inner)
		}
	case len(w) == 1:
		ok = func(m lsptest.Message) bool { return m.Method == w[0] }
	default:
		return fmt.Errorf("want: wait event <type> | wait <method>")
	}
	i, _, err := p.r.ed.Next(ctx, p.cursor, ok)
	if err != nil {
		return err
	}
	p.cursor = i + 1
	return nil
}

func (p *player) cancel(ctx context.Context, w []string) error {
	if len(w) != 1 {
		return fmt.Errorf("want: cancel run|progress|subagent")
	}
	switch w[0] {
	case "run":
		id := <-p.r.runID
		p.r.runID <- id
		b, _ := json.Marshal(map[string]string{"runId": id})
		// The run may end (and the steps' ctx with it) before the answer
		// comes back: the answer is not waited for on ctx.
		_, err := p.r.ed.Server.ExecuteCommand(p.r.t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandCancel, Arguments: []protocol.LSPAny{b}})
		return err
	case "progress", "subagent":
		var token string
		for _, m := range p.r.ed.Messages() {
			if m.Method != protocol.MethodProgress || progressOf(m).Kind != "begin" {
				continue
			}
			sub := strings.Count(progressOf(m).Token, "/") > 1
			if token == "" && !sub && w[0] == "progress" || sub && w[0] == "subagent" {
				token = progressOf(m).Token
			}
		}
		if token == "" {
			return fmt.Errorf("no %s progress token", w[0])
		}
		return p.r.ed.Server.WorkDoneProgressCancel(ctx, &protocol.WorkDoneProgressCancelParams{Token: protocol.String(token)})
	}
	return fmt.Errorf("cancel what? %q", w[0])
}

// answerNext answers the next request of the step's method.
func (p *player) answerNext(ctx context.Context, s step) error {
	w := s.words
	if len(w) < 2 {
		return fmt.Errorf("missing answer")
	}
	q := p.queues[methodOf(w[0])]
	var pr *pendingRequest
	select {
	case pr = <-q: // a request already waiting wins over a finished run
	default:
		select {
		case pr = <-q:
		case <-ctx.Done():
			return fmt.Errorf("no %s request came", w[0])
		}
	}
	text := strings.Join(w[1:], " ")
	if w[1] == "hold" {
		// No answer: the server withdraws the request ($/cancelRequest,
		// which the transcript shows).
		p.answer(pr.msg.ID, "hold")
		return nil
	}
	p.answer(pr.msg.ID, text)
	res, err := p.reply(pr, w)
	if err != nil {
		return err
	}
	pr.reply <- res
	return nil
}

func (p *player) reply(pr *pendingRequest, w []string) (reply, error) {
	if len(w) == 4 && w[1] == "error" {
		code, err := strconv.Atoi(w[2])
		if err != nil {
			return reply{}, err
		}
		return reply{err: jsonrpc2.NewError(jsonrpc2.Code(code), w[3])}, nil
	}
	if w[0] == "showMessageRequest" {
		if w[1] == "dismiss" {
			return reply{res: jsonrpc2.RawMessage("null")}, nil
		}
		return reply{res: &protocol.MessageActionItem{Title: strings.Join(w[1:], " ")}}, nil
	}
	var params protocol.ApplyWorkspaceEditParams
	if err := protocol.Unmarshal(pr.msg.Params, &params); err != nil {
		return reply{}, err
	}
	var a lsptest.Answer
	switch w[1] {
	case "apply":
	case "stale":
		a.Stale = true
	case "late":
		a.Late = true
	case "reject":
		a.Reject, a.Reason = true, strings.Join(w[2:], " ")
	case "partial":
		a.RejectHunks = []int{}
		for _, opt := range w[2:] {
			k, v, _ := strings.Cut(opt, "=")
			switch k {
			case "reject":
				for _, n := range strings.Split(v, ",") {
					i, err := hunkNumber(n)
					if err != nil {
						return reply{}, err
					}
					a.RejectHunks = append(a.RejectHunks, i)
				}
			case "edit":
				n, text, _ := strings.Cut(v, ":")
				i, err := hunkNumber(n)
				if err != nil {
					return reply{}, err
				}
				if a.EditHunks == nil {
					a.EditHunks = map[int]string{}
				}
				a.EditHunks[i] = text
			default:
				return reply{}, fmt.Errorf("partial: unknown %q", opt)
			}
		}
	default:
		return reply{}, fmt.Errorf("unknown applyEdit answer %q", w[1])
	}
	res, err := p.r.ed.Apply(pr.ctx, &params, a)
	return reply{res: res, err: err}, nil
}

// hunkNumber reads a hunk's number as people see it (from 1) and returns
// its index on the wire (from 0).
func hunkNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("hunk %q: hunks are numbered from 1", s)
	}
	return n - 1, nil
}

// isSubagentToken reports whether a progress token is a subagent's.
func isSubagentToken(tok string) bool { return strings.Count(tok, "/") > 1 }

// scenarioDeadline is how long a scenario's steps may take.
const scenarioDeadline = time.Minute

// revert waits for the run's end, then starts agentls.revert of it; its
// answer comes when the user has decided, which later steps may script.
func (p *player) revert(ctx context.Context) error {
	id := <-p.r.runID
	p.r.runID <- id
	if err := p.r.runEnded(ctx); err != nil {
		return err
	}
	p.r.reverts.Add(1)
	go func() {
		defer p.r.reverts.Done()
		b, _ := json.Marshal(map[string]string{"runId": id})
		res, err := p.r.ed.Server.ExecuteCommand(p.r.t.Context(), &protocol.ExecuteCommandParams{Command: contract.CommandRevert, Arguments: []protocol.LSPAny{b}})
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			p.reverted = append(p.reverted, "revert error: "+err.Error())
			return
		}
		var out contract.RevertResult
		json.Unmarshal(res, &out)
		line := fmt.Sprintf("revert %s: %s %q", out.RunID, out.Outcome, out.Summary)
		for _, f := range out.Files {
			line += fmt.Sprintf("\n  %s %s %q", f.Name, f.Outcome, f.Message)
		}
		p.reverted = append(p.reverted, line)
	}()
	return nil
}
