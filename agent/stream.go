package agent

import (
	"context"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// callModel streams one model call, emitting thought and text chunks as they
// arrive, and returns the model's turn as history content (nil when the
// model said nothing) and why the model stopped. An error is a failed call.
func (r *run) callModel(ctx context.Context, decls []*genai.FunctionDeclaration) (*genai.Content, genai.FinishReason, error) {
	req := &Request{
		Model:    r.modelName,
		Contents: r.history,
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(r.systemPrompt(), genai.RoleUser),
			Tools:             []*genai.Tool{{FunctionDeclarations: decls}},
			ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: true},
		},
		Events:   r.emit,
		PromptID: r.promptID(),
	}
	var (
		parts  []*genai.Part
		usage  *genai.GenerateContentResponseUsageMetadata
		finish genai.FinishReason
		block  string
	)
	for resp, err := range r.model.Generate(ctx, req) {
		if err != nil {
			return nil, finish, fmt.Errorf("model: %w", err)
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			block = string(pf.BlockReason)
		}
		if len(resp.Candidates) == 0 {
			continue
		}
		cand := resp.Candidates[0]
		if cand.FinishReason != "" {
			finish = cand.FinishReason
		}
		if cand.Content == nil {
			continue
		}
		for _, p := range cand.Content.Parts {
			parts = r.addPart(parts, p)
		}
		if r.loops.textLooping() {
			break // stop the stream: the model repeats itself
		}
	}
	if usage != nil {
		u := usageOf(usage)
		r.usage.Add(u)
		r.emit(Event{Type: EventUsage, Usage: &u})
	}
	if block != "" {
		return nil, finish, fmt.Errorf("model: the prompt was blocked (%s)", block)
	}
	if len(parts) == 0 {
		return nil, finish, nil
	}
	return &genai.Content{Role: genai.RoleModel, Parts: parts}, finish, nil
}

// addPart emits one streamed part and adds it to the turn's parts: adjacent
// text is merged, thought text is dropped from history (its signature, which
// the API requires back, is kept).
func (r *run) addPart(parts []*genai.Part, p *genai.Part) []*genai.Part {
	switch {
	case p.FunctionCall != nil:
		return append(parts, p)
	case p.Thought:
		if p.Text != "" {
			if s := thoughtSubject(p.Text); s != "" {
				r.subject = s
			}
			r.emit(Event{Type: EventThought, Text: p.Text, Subject: r.subject})
			r.loops.text(p.Text)
		}
		if len(p.ThoughtSignature) > 0 {
			return append(parts, &genai.Part{Thought: true, ThoughtSignature: p.ThoughtSignature})
		}
		return parts
	case p.Text != "":
		r.emit(Event{Type: EventText, Text: p.Text})
		r.loops.text(p.Text)
		if n := len(parts); n > 0 && isPlainText(parts[n-1]) && len(p.ThoughtSignature) == 0 {
			merged := *parts[n-1]
			merged.Text += p.Text
			parts[n-1] = &merged
			return parts
		}
		return append(parts, p)
	case len(p.ThoughtSignature) > 0:
		return append(parts, p)
	}
	return parts
}

func isPlainText(p *genai.Part) bool {
	return p.Text != "" && !p.Thought && p.FunctionCall == nil && len(p.ThoughtSignature) == 0
}

// thoughtSubject returns the bold subject a Gemini thought opens with
// ("**Reading the file**\n\n…"), or "".
func thoughtSubject(text string) string {
	t := strings.TrimLeft(text, " \t\r\n")
	if !strings.HasPrefix(t, "**") {
		return ""
	}
	end := strings.Index(t[2:], "**")
	if end <= 0 {
		return ""
	}
	s := strings.TrimSpace(t[2 : 2+end])
	if strings.Contains(s, "\n") {
		return ""
	}
	return s
}

// generateText makes a side call of the run (routing, summarizing): no tool
// runs and nothing is streamed to the consumer. It returns the answer's text;
// its usage counts in the run's.
func (r *run) generateText(ctx context.Context, req *Request) (string, error) {
	var b strings.Builder
	for resp, err := range r.model.Generate(ctx, req) {
		if err != nil {
			return "", err
		}
		if resp.UsageMetadata != nil {
			r.usage.Add(usageOf(resp.UsageMetadata))
		}
		for _, c := range resp.Candidates {
			if c.Content == nil {
				continue
			}
			for _, p := range c.Content.Parts {
				if !p.Thought {
					b.WriteString(p.Text)
				}
			}
		}
	}
	return b.String(), nil
}
