package agent

import (
	"context"
	"encoding/json"
	"strings"

	"google.golang.org/genai"
)

// Loop detection limits, as in Gemini CLI.
const (
	sameCallLimit = 5  // the same tool call with the same arguments, in a row
	sameTextLimit = 10 // the same text chunk, in a row
)

// loopDetector notices a model that repeats itself. The first time, the run
// tells the model and goes on; the second time it asks the user whether to
// keep going, where someone can answer, and otherwise stops with StopLoop.
type loopDetector struct {
	off       bool // Config.NoLoopDetection
	lastCall  string
	callCount int
	lastText  string
	textCount int
	strikes   int
}

// callsLooping records a turn's calls and reports whether one call has now
// been repeated sameCallLimit times in a row.
func (d *loopDetector) callsLooping(calls []*genai.FunctionCall) bool {
	if d.off {
		return false
	}
	looping := false
	for _, c := range calls {
		args, _ := json.Marshal(c.Args) // map keys are sorted: a canonical form
		key := c.Name + " " + string(args)
		if key == d.lastCall {
			d.callCount++
		} else {
			d.lastCall, d.callCount = key, 1
		}
		if d.callCount >= sameCallLimit {
			looping = true
			d.callCount = 0
		}
	}
	return looping
}

// text records a streamed text or thought chunk.
func (d *loopDetector) text(chunk string) {
	if d.off {
		return
	}
	t := strings.TrimSpace(chunk)
	if t == "" {
		return
	}
	if t == d.lastText {
		d.textCount++
		return
	}
	d.lastText, d.textCount = t, 1
}

// forgetText forgets the text chunks seen: they were voided.
func (d *loopDetector) forgetText() { d.lastText, d.textCount = "", 0 }

// textLooping reports whether the last chunk has been repeated
// sameTextLimit times in a row.
func (d *loopDetector) textLooping() bool { return d.textCount >= sameTextLimit }

// loopStrike handles a text loop: a warning the first time; the second,
// the user decides whether the run goes on (with the warning again), and
// without anyone to ask it ends.
func (r *run) loopStrike(ctx context.Context, what string) (RunEnd, bool) {
	r.loops.forgetText()
	if r.loops.strikes > 0 && !r.keepGoing(ctx, "The model keeps repeating the same text.") {
		if ctx.Err() != nil {
			return r.cancelled(ctx), true
		}
		return RunEnd{Reason: StopLoop, Error: "the model kept repeating itself"}, true
	}
	r.loops.strikes++
	r.history = append(r.history, genai.NewContentFromText(loopFeedback(what), genai.RoleUser))
	return RunEnd{}, false
}

// keepGoing asks the user, through the run's Approver, whether the run
// goes on although its model repeats itself after a warning (as Gemini
// CLI asks). Yes starts loop detection afresh: it warns, then asks, again.
// Without an Approver, or when the question ends without an answer, the
// answer is no. The run's clock stops while the user decides.
func (r *run) keepGoing(ctx context.Context, what string) bool {
	if r.perm.approver == nil {
		return false
	}
	ap := Approval{Kind: ApprovalLoop, Tool: "loop_detection", Description: what + " Keep going?"}
	r.emit(Event{Type: EventApprovalRequested, Approval: &ap})
	resume := r.clock.pause()
	ok, err := r.perm.approver.Approve(ctx, ap)
	resume()
	decided := ap
	if err != nil {
		ok = false
		decided.Withdrawn = true
	}
	decided.Allowed = &ok
	r.emit(Event{Type: EventApprovalDecided, Approval: &decided})
	if ok {
		r.loops = loopDetector{off: r.loops.off}
	}
	return ok
}

func loopFeedback(what string) string {
	return what + " This looks like a loop. Step back: try a different approach, or call complete_task with what you have."
}

// withoutCalls keeps the text of a content cut short, dropping calls whose
// responses will never come.
func withoutCalls(c *genai.Content) *genai.Content {
	out := &genai.Content{Role: genai.RoleModel}
	if c == nil {
		c = out
	}
	for _, p := range c.Parts {
		if p.FunctionCall == nil {
			out.Parts = append(out.Parts, p)
		}
	}
	if len(out.Parts) == 0 {
		out.Parts = []*genai.Part{{Text: "…"}}
	}
	return out
}
