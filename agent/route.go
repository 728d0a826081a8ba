package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"google.golang.org/genai"
)

// ModelAuto asks the harness to route: one cheap classification call picks
// the run's model.
const ModelAuto = "auto"

// A Router picks between a fast and a strong model for runs whose model is
// ModelAuto.
type Router struct {
	Classifier string // the model that classifies the task
	Fast       string // for simple, well-defined tasks
	Strong     string // for complex reasoning, design and multi-file work
}

// DefaultRouter routes between the default models.
var DefaultRouter = Router{Classifier: DefaultClassifierModel, Fast: DefaultFastModel, Strong: DefaultStrongModel}

// orDefaults fills rt's empty fields from DefaultRouter.
func (rt Router) orDefaults() Router {
	if rt.Classifier == "" {
		rt.Classifier = DefaultRouter.Classifier
	}
	if rt.Fast == "" {
		rt.Fast = DefaultRouter.Fast
	}
	if rt.Strong == "" {
		rt.Strong = DefaultRouter.Strong
	}
	return rt
}

// routerMaxTokens bounds the router's answer, thinking aside.
const routerMaxTokens = 200

const routerPrompt = `Classify the coding task below for a model router. Answer "strong" for tasks that need deep reasoning: design, debugging a subtle problem, changes across several files, an unclear request. Answer "fast" for simple, well-defined tasks: explaining code, a small local edit, a rename, a question with a clear answer.

Task:
`

// route picks the run's model once, before the first turn; the choice holds
// for the whole run, recovery turn included. A failing router falls back to
// the fast model.
func (r *run) route(ctx context.Context, task Task) {
	if r.def.Model != ModelAuto {
		r.modelName = r.def.Model
		return
	}
	rt := r.router
	model, reason := rt.Fast, ""
	choice, why, err := r.classify(ctx, rt.Classifier, task)
	switch {
	case err != nil:
		reason = fmt.Sprintf("router failed (%v); using the default model", err)
	case choice == "strong":
		model, reason = rt.Strong, why
	default:
		reason = why
	}
	r.modelName = model
	r.emit(Event{Type: EventModelRouted, Routed: &Routing{Model: model, Reason: reason}})
}

// classify asks the classifier for "fast" or "strong" and a short reason.
func (r *run) classify(ctx context.Context, model string, task Task) (choice, reason string, err error) {
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"model":  map[string]any{"type": "string", "enum": []string{"fast", "strong"}},
			"reason": map[string]any{"type": "string"},
		},
		"required": []string{"model", "reason"},
	}
	req := &Request{
		Model:    model,
		Contents: []*genai.Content{genai.NewContentFromText(routerPrompt+taskMessage(task), genai.RoleUser)},
		Config: &genai.GenerateContentConfig{
			ResponseMIMEType:   "application/json",
			ResponseJsonSchema: schema,
			MaxOutputTokens:    routerMaxTokens + thinkingRoom,
			ThinkingConfig:     sideThinking(model),
		},
		Events:   r.emit,
		PromptID: r.promptID(),
	}
	text, err := r.sideCall(ctx, req)
	if err != nil {
		return "", "", err
	}
	var out struct {
		Model  string `json:"model"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		return "", "", fmt.Errorf("unreadable answer %q", shortText(text, 80))
	}
	if out.Model != "fast" && out.Model != "strong" {
		return "", "", fmt.Errorf("unknown choice %q", out.Model)
	}
	return out.Model, out.Reason, nil
}

func usageOf(u *genai.GenerateContentResponseUsageMetadata) Usage {
	return Usage{
		Prompt:   int64(u.PromptTokenCount),
		Output:   int64(u.CandidatesTokenCount),
		Thoughts: int64(u.ThoughtsTokenCount),
		Cached:   int64(u.CachedContentTokenCount),
		ToolUse:  int64(u.ToolUsePromptTokenCount),
	}
}

func shortText(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
