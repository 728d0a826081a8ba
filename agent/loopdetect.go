package agent

import (
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
// tells the model and goes on; the second time it stops with StopLoop.
type loopDetector struct {
	lastCall  string
	callCount int
	lastText  string
	textCount int
	strikes   int
}

// callsLooping records a turn's calls and reports whether one call has now
// been repeated sameCallLimit times in a row.
func (d *loopDetector) callsLooping(calls []*genai.FunctionCall) bool {
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

// textLooping reports whether the last chunk has been repeated
// sameTextLimit times in a row.
func (d *loopDetector) textLooping() bool { return d.textCount >= sameTextLimit }

// loopStrike handles a text loop: a warning the first time, the end of the
// run the second.
func (r *run) loopStrike(what string) (RunEnd, bool) {
	r.loops.textCount = 0
	r.loops.lastText = ""
	if r.loops.strikes > 0 {
		return RunEnd{Reason: StopLoop, Error: "the model kept repeating itself"}, true
	}
	r.loops.strikes++
	r.history = append(r.history, genai.NewContentFromText(loopFeedback(what), genai.RoleUser))
	return RunEnd{}, false
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
