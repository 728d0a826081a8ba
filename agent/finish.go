package agent

import (
	"fmt"

	"google.golang.org/genai"
)

// badFinish handles a model turn that ended abnormally; handled is false
// for a normal turn. What the API said about it (finishMessage,
// blockReasonMessage) is passed on word for word.
//
//   - A malformed or unexpected function call, too many calls, or an answer
//     cut at the output limit: the model is told, and the run goes on (the
//     turn limit bounds it).
//   - An answer withheld by the model's filters: the model is told once,
//     and the user sees it as a retry; a second in a row stops the run.
//   - A blocked prompt: the run stops (the same prompt would be blocked
//     again).
//   - No answer at all (a retry layer has already asked again): the run
//     gets its recovery turn.
func (r *run) badFinish(a answer) (end RunEnd, done, handled bool) {
	hasCalls := a.content != nil && len(functionCalls(a.content)) > 0
	nudge := func(note string) (RunEnd, bool, bool) {
		r.history = append(r.history, withoutCalls(a.content))
		r.addUserText(note)
		return RunEnd{}, false, true
	}
	if a.blocked != "" {
		return RunEnd{Reason: StopError, Error: said(fmt.Sprintf("the prompt was blocked by the model's filters (%s)", a.blocked), a.blockMessage) +
			"; rephrase the task"}, true, true
	}
	switch f := a.finish; {
	case f == genai.FinishReasonMalformedFunctionCall || f == genai.FinishReasonUnexpectedToolCall:
		return nudge(said(fmt.Sprintf("Your last function call could not be used (%s)", f), a.message) +
			". Call one of the declared tools again, with valid JSON arguments that match its parameters.")
	case f == genai.FinishReasonTooManyToolCalls:
		return nudge("Your last answer made too many function calls at once. Make fewer calls per turn.")
	case f == genai.FinishReasonMaxTokens && !hasCalls:
		return nudge("Your last answer was cut off at the output limit. Continue, more briefly; put long content in several smaller tool calls.")
	case withheld(f) && !hasCalls:
		what := said(fmt.Sprintf("the model's answer was withheld by its filters (%s)", f), a.message)
		if r.withheld > 0 {
			return RunEnd{Reason: StopError, Error: what + "; rephrase the task"}, true, true
		}
		r.withheld++
		r.emit(Event{Type: EventRetry, Retry: &RetryInfo{Attempt: 1, Reason: fmt.Sprintf("answer withheld (%s)", f), Error: what}})
		return nudge(said(fmt.Sprintf("Your last answer was withheld by the model's filters (%s)", f), a.message) +
			". Answer again another way: in your own words, without quoting protected or sensitive content.")
	}
	r.withheld = 0
	if a.content == nil {
		r.empty = true
		return RunEnd{Reason: StopNoCompleteTask, Error: "the model's answer was empty"}, true, true
	}
	return RunEnd{}, false, false
}

// withheld tells the finish reasons of an answer the model's filters
// stopped.
func withheld(f genai.FinishReason) bool {
	switch f {
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonLanguage, genai.FinishReasonOther,
		genai.FinishReasonBlocklist, genai.FinishReasonProhibitedContent, genai.FinishReasonSPII,
		genai.FinishReasonImageSafety, genai.FinishReasonImageProhibitedContent, genai.FinishReasonImageRecitation,
		genai.FinishReasonImageOther, "MODEL_ARMOR":
		return true
	}
	return false
}

// said appends what the API said, verbatim, to what happened.
func said(what, message string) string {
	if message == "" {
		return what
	}
	return what + ": " + message
}
