package agent

import (
	"fmt"

	"google.golang.org/genai"
)

// badFinish handles a model turn that ended abnormally. A malformed function
// call and an answer cut at the output limit are told to the model, and the
// run goes on (the turn limit bounds retries); an answer withheld by the
// model's filters, or no answer at all, stops the run with a clear error.
// handled is false for a normal turn.
func (r *run) badFinish(content *genai.Content, finish genai.FinishReason) (end RunEnd, done, handled bool) {
	hasCalls := content != nil && len(functionCalls(content)) > 0
	nudge := func(note string) (RunEnd, bool, bool) {
		r.history = append(r.history, withoutCalls(content))
		r.addUserText(note)
		return RunEnd{}, false, true
	}
	switch finish {
	case genai.FinishReasonMalformedFunctionCall, genai.FinishReasonUnexpectedToolCall:
		return nudge(fmt.Sprintf("Your last function call could not be parsed (%s). Call the tool again with valid JSON arguments that match its parameters.", finish))
	case genai.FinishReasonTooManyToolCalls:
		return nudge("Your last answer made too many function calls at once. Make fewer calls per turn.")
	case genai.FinishReasonMaxTokens:
		if !hasCalls {
			return nudge("Your last answer was cut off at the output limit. Continue, more briefly; put long content in several smaller tool calls.")
		}
	case genai.FinishReasonSafety, genai.FinishReasonRecitation, genai.FinishReasonBlocklist,
		genai.FinishReasonProhibitedContent, genai.FinishReasonSPII, genai.FinishReasonImageSafety:
		if !hasCalls {
			return RunEnd{Reason: StopError, Error: fmt.Sprintf("the model's answer was withheld by its filters (%s); rephrase the task", finish)}, true, true
		}
	}
	if content == nil {
		msg := "model: empty answer"
		if finish != "" && finish != genai.FinishReasonStop {
			msg += fmt.Sprintf(" (finish reason %s)", finish)
		}
		return RunEnd{Reason: StopError, Error: msg}, true, true
	}
	return RunEnd{}, false, false
}
