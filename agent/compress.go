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
// model; if that is not enough, or fails, old tool outputs are trimmed and,
// if still needed, the oldest turns dropped. The task message and the
// newest turn stay, and a function call never loses its response.
//
// A summary that fails (an error, or an empty answer) is not asked for
// again in this run: each attempt re-sends the whole old history. When even
// the hardest trim leaves the prompt over the model's context window, the
// run stops (stop is true) with end saying why.
func (r *run) compress(ctx context.Context) (end RunEnd, stop bool) {
	limit := int(float64(r.window) * r.threshold)
	if r.fixed == 0 {
		r.fixed = r.fixedTokens()
	}
	fixed := r.fixed
	before := fixed + r.historyTokens()
	if before <= limit {
		return RunEnd{}, false
	}
	split := keepFrom(r.history)
	old, kept := r.history[:split], r.history[split:]
	h, method := append(mask(old, maskMinBytes), kept...), "mask"
	if fixed+tokens(h) > limit && split > 1 && !r.noSummary {
		if summary, err := r.summarize(ctx, old); err == nil {
			task := *r.history[0]
			task.Parts = append(append([]*genai.Part(nil), task.Parts...), &genai.Part{Text: "\n" + summary})
			h, method = append([]*genai.Content{&task}, kept...), "summary"
		} else {
			r.noSummary = true
		}
	}
	if fixed+tokens(h) > limit && method != "summary" {
		h, method = append(mask(old, 0), kept...), "trim"
	}
	if fixed+tokens(h) > limit {
		h, method = dropOldest(h, limit-fixed), "trim"
	}
	after := fixed + tokens(h)
	if after > limit {
		// Even the newest turn is too big: a summary of the rest cannot
		// help, and would be asked for every turn.
		r.noSummary = true
	}
	r.replaceHistory(h, before, after, method)
	if after > r.window {
		return RunEnd{Reason: StopError, Error: fmt.Sprintf("the conversation no longer fits the model's context window (about %d tokens after compression, window %d)", after, r.window)}, true
	}
	return RunEnd{}, false
}

// dropOldest returns h without its oldest turns, so that it fits budget
// tokens where it can: the task message (with a note of what was dropped)
// and a tail that starts with a model turn stay. If even the newest turn
// does not fit, its tool outputs are trimmed too.
func dropOldest(h []*genai.Content, budget int) []*genai.Content {
	if len(h) < 3 {
		return h
	}
	head := tokens(h[:1]) + 32 // the task, and the note
	from := -1
	for i := 1; i < len(h); i++ {
		if h[i].Role == genai.RoleModel {
			from = i
			if head+tokens(h[i:]) <= budget {
				break
			}
		}
	}
	out := h
	if from > 1 {
		task := *h[0]
		task.Parts = append(append([]*genai.Part(nil), task.Parts...),
			&genai.Part{Text: fmt.Sprintf("\n[%d earlier messages were dropped to save context; read again what you need]", from-1)})
		out = append([]*genai.Content{&task}, h[from:]...)
	}
	if tokens(out) > budget {
		out = append(out[:1:1], maskAll(out[1:])...)
	}
	return out
}

// maskAll is mask for a history that does not start with the task.
func maskAll(h []*genai.Content) []*genai.Content {
	return mask(append([]*genai.Content{{}}, h...), 0)[1:]
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
			// Thinking counts against the limit: leave the summary room.
			MaxOutputTokens: summaryMaxTokens + thinkingRoom,
			ThinkingConfig:  sideThinking(r.modelName),
		},
		Events:   r.emit,
		PromptID: r.promptID(),
	}
	text, err := r.sideCall(ctx, req)
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
