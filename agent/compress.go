package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// Compression tuning.
const (
	keepFraction     = 0.3  // the newest part of the history kept verbatim
	maskMinBytes     = 2000 // old tool outputs larger than this are masked
	summaryMaxTokens = 2048 // cap on the summary's length
)

const summaryPrompt = `The conversation so far is about to be replaced by a summary to save context. Write a state snapshot that lets you continue the task without it:
<state_snapshot>
<goal>the user's goal, in their words</goal>
<knowledge>facts learned: file contents that matter, conventions, constraints</knowledge>
<files>files read and changed, and what became of each proposed change (applied, rejected, conflict)</files>
<progress>what is done, what failed, what is next</progress>
</state_snapshot>
Answer with the snapshot only.`

// compress keeps the prompt under the threshold before a model call: first
// old tool outputs are masked, then the older history is summarized by the
// model, and if that fails old tool outputs are trimmed. It never fails the
// run. The task message and the newest ~30% of the history stay verbatim, and
// a function call never loses its response.
func (r *run) compress(ctx context.Context) {
	limit := int(float64(r.window) * r.threshold)
	if r.fixed == 0 {
		r.fixed = r.fixedTokens()
	}
	fixed := r.fixed
	before := fixed + r.historyTokens()
	if before <= limit {
		return
	}
	split := keepFrom(r.history)
	old, kept := r.history[:split], r.history[split:]
	masked := mask(old, maskMinBytes)
	if after := fixed + tokens(masked) + tokens(kept); after <= limit || split <= 1 {
		r.replaceHistory(append(masked, kept...), before, after, "mask")
		return
	}
	if summary, err := r.summarize(ctx, old); err == nil {
		task := *r.history[0]
		task.Parts = append(append([]*genai.Part(nil), task.Parts...), &genai.Part{Text: "\n" + summary})
		h := append([]*genai.Content{&task}, kept...)
		r.replaceHistory(h, before, fixed+tokens(h), "summary")
		return
	}
	trimmed := mask(old, 0)
	r.replaceHistory(append(trimmed, kept...), before, fixed+tokens(trimmed)+tokens(kept), "trim")
}

func (r *run) replaceHistory(h []*genai.Content, before, after int, method string) {
	r.history = h
	r.emit(Event{Type: EventCompressed, Compressed: &Compression{Before: before, After: after, Method: method}})
}

// fixedTokens estimates the preamble sent with every call: the system prompt
// and the tool declarations.
func (r *run) fixedTokens() int {
	b, _ := json.Marshal(r.decls)
	return (len(r.systemPrompt()) + len(b)) / 4
}

// keepFrom returns where the verbatim tail of the history starts: a model
// content (so no function call is cut from its response), with about
// keepFraction of the tokens after it, and never the task message at 0.
func keepFrom(h []*genai.Content) int {
	total := tokens(h)
	acc, split := 0, len(h)
	for i := len(h) - 1; i >= 1; i-- {
		acc += tokens(h[i : i+1])
		if h[i].Role == genai.RoleModel {
			split = i
			if float64(acc) >= keepFraction*float64(total) {
				break
			}
		}
	}
	return split
}

// mask returns a copy of h whose tool outputs larger than min bytes are
// replaced by a note; the task message at 0 is kept.
func mask(h []*genai.Content, min int) []*genai.Content {
	out := make([]*genai.Content, len(h))
	for i, c := range h {
		out[i] = c
		if i == 0 {
			continue
		}
		var parts []*genai.Part
		changed := false
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				b, _ := json.Marshal(fr.Response)
				if len(b) > min {
					cp := *fr
					cp.Response = map[string]any{"output": fmt.Sprintf("[%d bytes of %s output omitted to save context; call the tool again if you need it]", len(b), fr.Name)}
					parts = append(parts, &genai.Part{FunctionResponse: &cp})
					changed = true
					continue
				}
			}
			parts = append(parts, p)
		}
		if changed {
			out[i] = &genai.Content{Role: c.Role, Parts: parts}
		}
	}
	return out
}

// summarize asks the model for a state snapshot of the history h.
func (r *run) summarize(ctx context.Context, h []*genai.Content) (string, error) {
	contents := append(append([]*genai.Content(nil), h...), genai.NewContentFromText(summaryPrompt, genai.RoleUser))
	req := &Request{
		Model:    r.modelName,
		Contents: contents,
		Config: &genai.GenerateContentConfig{
			SystemInstruction: genai.NewContentFromText(r.systemPrompt(), genai.RoleUser),
			Tools:             []*genai.Tool{{FunctionDeclarations: r.decls}},
			ToolConfig:        &genai.ToolConfig{FunctionCallingConfig: &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}},
			MaxOutputTokens:   summaryMaxTokens,
		},
		Events:   r.emit,
		PromptID: r.promptID(),
	}
	text, err := r.generateText(ctx, req)
	if err != nil {
		return "", err
	}
	s := strings.TrimSpace(text)
	if s == "" {
		return "", fmt.Errorf("empty summary")
	}
	if !strings.Contains(s, "<state_snapshot>") {
		s = "<state_snapshot>\n" + s + "\n</state_snapshot>"
	}
	return s, nil
}

// historyTokens estimates the history's tokens. Contents are never changed
// once in the history (they are replaced), so each is measured once.
func (r *run) historyTokens() int {
	if r.sizes == nil {
		r.sizes = make(map[*genai.Content]int)
	}
	n := 0
	for _, c := range r.history {
		t, ok := r.sizes[c]
		if !ok {
			t = contentTokens(c)
			r.sizes[c] = t
		}
		n += t
	}
	if len(r.sizes) > 2*len(r.history)+16 {
		r.sizes = nil // forget contents compression dropped
	}
	return n
}

// tokens estimates the tokens of contents: four bytes a token.
func tokens(h []*genai.Content) int {
	n := 0
	for _, c := range h {
		n += contentTokens(c)
	}
	return n
}

func contentTokens(c *genai.Content) int { return ContentSize(c) / 4 }

// ContentSize is the size of a content as the harness estimates prompts:
// the bytes of its text, and of its function calls' and responses' JSON.
// Four bytes make a token.
func ContentSize(c *genai.Content) int {
	n := 0
	for _, p := range c.Parts {
		n += len(p.Text)
		if p.FunctionCall != nil {
			b, _ := json.Marshal(p.FunctionCall.Args)
			n += len(b) + len(p.FunctionCall.Name)
		}
		if p.FunctionResponse != nil {
			b, _ := json.Marshal(p.FunctionResponse.Response)
			n += len(b) + len(p.FunctionResponse.Name)
		}
	}
	return n
}
