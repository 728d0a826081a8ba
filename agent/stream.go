package agent

import (
	"context"
	"strings"

	"google.golang.org/genai"
)

// An answer is the model's turn, as the harness keeps it.
type answer struct {
	// content is the turn as history content, only parts with data; nil
	// when the model said nothing.
	content *genai.Content
	finish  genai.FinishReason
	// message is the API's finishMessage: why the answer stopped, in its
	// words (a filter's explanation, a malformed call's details).
	message string
	// blocked is the promptFeedback block reason of a prompt the API
	// refused to answer, and blockMessage its blockReasonMessage.
	blocked, blockMessage string
}

// callModel streams one model call, emitting thought and text chunks as they
// arrive, and returns the model's turn. An error is a failed call.
//
// A retry event with Discard set (a retry layer calls the model again after
// part of the answer streamed) voids what was collected so far: the
// history never holds a partial answer, nor one twice.
func (r *run) callModel(ctx context.Context, decls []*genai.FunctionDeclaration) (answer, error) {
	var (
		parts    []*genai.Part
		usage    *genai.GenerateContentResponseUsageMetadata
		answered string // the model that answered
		a        answer
	)
	r.saveHistory()
	req := &Request{
		Model:    r.modelName,
		Contents: r.history,
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(r.systemPrompt(), genai.RoleUser),
			Tools:             []*genai.Tool{{FunctionDeclarations: decls}},
			ThinkingConfig:    &genai.ThinkingConfig{IncludeThoughts: true},
		},
		Events: func(ev Event) {
			if ev.Type == EventRetry && ev.Retry != nil && ev.Retry.Discard {
				parts, usage, a = nil, nil, answer{}
				r.loops.forgetText()
			}
			r.emit(ev)
		},
		PromptID: r.promptID(),
	}
	for resp, err := range r.model.Generate(ctx, req) {
		if err != nil {
			return answer{}, err
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if resp.ModelVersion != "" {
			answered = resp.ModelVersion
		}
		if pf := resp.PromptFeedback; pf != nil && pf.BlockReason != "" {
			a.blocked, a.blockMessage = string(pf.BlockReason), pf.BlockReasonMessage
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil {
			continue
		}
		cand := resp.Candidates[0]
		if cand.FinishReason != "" {
			a.finish = cand.FinishReason
		}
		if cand.FinishMessage != "" {
			a.message = cand.FinishMessage
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
		u := r.priced(usageOf(usage), answered, req.Model)
		r.usage.Add(u)
		r.emit(Event{Type: EventUsage, Usage: &u})
	}
	if len(parts) > 0 {
		a.content = &genai.Content{Role: genai.RoleModel, Parts: parts}
	}
	return a, nil
}

// addPart emits one streamed part and adds it to the turn's parts. Only
// parts with data go to the history: thoughts are shown, not kept (as
// Gemini CLI does), and a part left with only a signature (Gemini 3 ends a
// text answer with {"text": "", "thoughtSignature": …}, whose empty text
// genai drops) is dropped, as genai's own Chat does: the API refuses parts
// without data. A function call part is kept as the API sent it, its id
// (when it has one) and signature included, byte for byte. Adjacent plain
// text is merged.
func (r *run) addPart(parts []*genai.Part, p *genai.Part) []*genai.Part {
	switch {
	case p == nil:
		return parts
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
	case hasData(p):
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
// runs and nothing is streamed to the consumer. It returns the answer's text
// (a part voided by a retry left out); its usage counts in the run's.
func (r *run) generateText(ctx context.Context, req *Request) (string, error) {
	var (
		b        strings.Builder
		usage    *genai.GenerateContentResponseUsageMetadata // the call's, as the last chunk counts it
		answered string
	)
	defer func() {
		if usage != nil {
			r.usage.Add(r.priced(usageOf(usage), answered, req.Model))
		}
	}()
	events := req.Events
	call := *req
	call.Events = func(ev Event) {
		if ev.Type == EventRetry && ev.Retry != nil && ev.Retry.Discard {
			b.Reset()
			usage = nil
		}
		if events != nil {
			events(ev)
		}
	}
	for resp, err := range r.model.Generate(ctx, &call) {
		if err != nil {
			return "", err
		}
		if resp.UsageMetadata != nil {
			usage = resp.UsageMetadata
		}
		if resp.ModelVersion != "" {
			answered = resp.ModelVersion
		}
		if len(resp.Candidates) == 0 || resp.Candidates[0] == nil || resp.Candidates[0].Content == nil {
			continue
		}
		for _, p := range resp.Candidates[0].Content.Parts {
			if p != nil && !p.Thought {
				b.WriteString(p.Text)
			}
		}
	}
	return b.String(), nil
}
