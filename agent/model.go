package agent

import (
	"context"
	"iter"

	"google.golang.org/genai"
)

// A Request is one model call: the conversation so far and the call's
// configuration (system instruction, tool declarations, thinking).
type Request struct {
	// Model names the model to call; "" means the Model's default.
	Model string
	// PromptID is the prompt id of the turn the call belongs to,
	// "<runId>#<turn>"; turn 0 is the routing call before the first turn,
	// and a compression summary shares its turn's id. Layers that record
	// or replay calls key them by it.
	PromptID string
	Contents []*genai.Content
	Config   *genai.GenerateContentConfig
	// Events, when set, lets model layers report on the run's stream (a
	// retry layer emits retry events). It is called on the goroutine that
	// iterates Generate's result.
	Events func(Event)
}

// Model is a streaming language model. Generate yields the response chunks
// of one call in order; on failure it yields the error once and stops.
//
// Layers (retry, rate limit, recorder) are Models that wrap another Model.
type Model interface {
	Generate(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error]
}
