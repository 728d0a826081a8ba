package agent

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/genai"
)

// thinkingRoom is the output allowance a side call gets for its model's
// thinking, on top of its answer's: thought tokens count against
// maxOutputTokens, and a limit they use up leaves an empty answer.
const thinkingRoom = 8192

// sideThinking is the least thinking a side call (routing, a summary) can
// ask of model, by family: Gemini 3 and the "-latest" aliases, which follow
// it, take thinkingLevel; the 2.5 line takes thinkingBudget, 0 except on
// 2.5 Pro, which always thinks (its least is 128). A model that refuses
// them anyway is asked again without (see sideCall).
func sideThinking(model string) *genai.ThinkingConfig {
	m := strings.TrimPrefix(model, "models/")
	switch {
	case strings.HasPrefix(m, "gemini-2.5-pro"):
		return &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](128)}
	case strings.HasPrefix(m, "gemini-2.") || strings.HasPrefix(m, "gemini-1."):
		return &genai.ThinkingConfig{ThinkingBudget: genai.Ptr[int32](0)}
	}
	return &genai.ThinkingConfig{ThinkingLevel: genai.ThinkingLevelLow}
}

// sideCall makes a side call of the run (see generateText). If the API
// refuses the call's thinking settings (a 400 that names them: a model of a
// family sideThinking does not know), it asks once more without them.
func (r *run) sideCall(ctx context.Context, req *Request) (string, error) {
	text, err := r.generateText(ctx, req)
	if err == nil || req.Config == nil || req.Config.ThinkingConfig == nil || !refusesThinking(err) || ctx.Err() != nil {
		return text, err
	}
	again := *req
	cfg := *req.Config
	cfg.ThinkingConfig = nil
	again.Config = &cfg
	return r.generateText(ctx, &again)
}

// refusesThinking tells a 400 INVALID_ARGUMENT about thinking settings
// ("Budget 0 is invalid. This model only works in thinking mode.",
// "Thinking level is not supported for this model.").
func refusesThinking(err error) bool {
	var me *ModelError
	apiErr, ok := asAPIError(err)
	if errors.As(err, &me) {
		apiErr, ok = me.API, true
	}
	if !ok || apiErr.Code != 400 {
		return false
	}
	msg := strings.ToLower(apiErr.Message)
	return strings.Contains(msg, "thinking") || strings.Contains(msg, "budget")
}
