package agent

import (
	"context"
	"errors"

	"google.golang.org/genai"
)

var errNoRun = errors.New("agent: the call belongs to no run")

// Generate makes a model call on behalf of the tool call (a web search
// grounded in Google Search, say): through the run's model and its layers
// (retries, rate limits, the trace), under the call's prompt id, with the
// run's model when req.Model is "". Nothing is streamed to the user; retries
// are reported on the run's stream, and the call's usage counts in the
// run's and is reported as a usage event. It returns the answer's chunks,
// without those a retry voided.
func (c *Call) Generate(ctx context.Context, req Request) ([]*genai.GenerateContentResponse, error) {
	if c.run == nil {
		return nil, errNoRun
	}
	if req.Model == "" {
		req.Model = c.run.modelName
	}
	req.PromptID = c.PromptID
	var chunks []*genai.GenerateContentResponse
	req.Events = func(ev Event) {
		if ev.Type == EventRetry && ev.Retry != nil && ev.Retry.Discard {
			chunks = nil
		}
		c.Emit(ev)
	}
	var usage *genai.GenerateContentResponseUsageMetadata
	defer func() {
		if usage != nil {
			u := usageOf(usage)
			c.Emit(Event{Type: EventUsage, Usage: &u}) // the run adds it to its own
		}
	}()
	for resp, err := range c.run.model.Generate(ctx, &req) {
		if err != nil {
			return nil, err
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		chunks = append(chunks, resp)
	}
	return chunks, nil
}
