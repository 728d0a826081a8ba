package geminitest

import (
	"encoding/json"
	"net/http"
	"strconv"

	"google.golang.org/genai"
)

// The wire types are our own, not genai's: marshalling genai's response
// types emits fields the API never sends (a zero "createTime", an empty
// "mediaProcessing" object) and omits ones it does ("index":0).

type wireResponse struct {
	Candidates     []wireCandidate     `json:"candidates,omitempty"`
	PromptFeedback *wirePromptFeedback `json:"promptFeedback,omitempty"`
	UsageMetadata  *wireUsage          `json:"usageMetadata,omitempty"`
	ModelVersion   string              `json:"modelVersion,omitempty"`
	ResponseID     string              `json:"responseId,omitempty"`
}

type wireCandidate struct {
	Content           *wireContent   `json:"content,omitempty"`
	FinishReason      string         `json:"finishReason,omitempty"`
	FinishMessage     string         `json:"finishMessage,omitempty"`
	GroundingMetadata *wireGrounding `json:"groundingMetadata,omitempty"`
	Index             int            `json:"index"`
}

type wirePromptFeedback struct {
	BlockReason        string `json:"blockReason"`
	BlockReasonMessage string `json:"blockReasonMessage,omitempty"`
}

type wireContent struct {
	Parts []wirePart `json:"parts"`
	Role  string     `json:"role"`
}

type wirePart struct {
	Text             *string   `json:"text,omitempty"` // a pointer: Gemini 3 sends "text": "" with a signature
	Thought          bool      `json:"thought,omitempty"`
	FunctionCall     *wireCall `json:"functionCall,omitempty"`
	ThoughtSignature []byte    `json:"thoughtSignature,omitempty"` // base64, as the API sends it
}

type wireCall struct {
	ID   string         `json:"id,omitempty"`
	Name string         `json:"name"`
	Args map[string]any `json:"args,omitempty"`
}

type wireUsage struct {
	PromptTokenCount        int32 `json:"promptTokenCount,omitempty"`
	CandidatesTokenCount    int32 `json:"candidatesTokenCount,omitempty"`
	ThoughtsTokenCount      int32 `json:"thoughtsTokenCount,omitempty"`
	ToolUsePromptTokenCount int32 `json:"toolUsePromptTokenCount,omitempty"`
	CachedContentTokenCount int32 `json:"cachedContentTokenCount,omitempty"`
	TotalTokenCount         int32 `json:"totalTokenCount,omitempty"`
}

type wireError struct {
	Error wireErrorBody `json:"error"`
}

type wireErrorBody struct {
	Code    int              `json:"code"`
	Message string           `json:"message"`
	Status  string           `json:"status"`
	Details []map[string]any `json:"details,omitempty"`
}

// statusNames are the google.rpc.Code names the API pairs with HTTP codes.
var statusNames = map[int]string{
	400: "INVALID_ARGUMENT",
	401: "UNAUTHENTICATED",
	403: "PERMISSION_DENIED",
	404: "NOT_FOUND",
	409: "ABORTED",
	429: "RESOURCE_EXHAUSTED",
	499: "CANCELLED",
	500: "INTERNAL",
	501: "NOT_IMPLEMENTED",
	503: "UNAVAILABLE",
	504: "DEADLINE_EXCEEDED",
}

// StatusName returns the status string the API sends with an HTTP error
// code, such as "RESOURCE_EXHAUSTED" for 429.
func StatusName(code int) string {
	if s, ok := statusNames[code]; ok {
		return s
	}
	if code >= 500 {
		return "INTERNAL"
	}
	return "UNKNOWN"
}

// errorJSON is the API's error body with details. A numeric retryAfter
// also becomes a google.rpc.RetryInfo detail, which is where the API (and
// so genai's APIError.Details) carries the delay; the SDK does not expose
// headers of a failed response.
func errorJSON(code int, msg, retryAfter string, details []map[string]any) []byte {
	if msg == "" {
		msg = http.StatusText(code)
	}
	e := wireError{Error: wireErrorBody{Code: code, Message: msg, Status: StatusName(code), Details: details}}
	if secs, err := strconv.Atoi(retryAfter); err == nil {
		e.Error.Details = append(e.Error.Details, RetryInfo(strconv.Itoa(secs)+"s"))
	}
	b, _ := json.Marshal(e)
	return b
}

// wire builds the response for one chunk.
func (c Chunk) wire(model, id string) wireResponse {
	r := wireResponse{ModelVersion: model, ResponseID: id}
	if c.Usage != nil {
		r.UsageMetadata = &wireUsage{
			PromptTokenCount:        c.Usage.PromptTokenCount,
			CandidatesTokenCount:    c.Usage.CandidatesTokenCount,
			ThoughtsTokenCount:      c.Usage.ThoughtsTokenCount,
			ToolUsePromptTokenCount: c.Usage.ToolUsePromptTokenCount,
			CachedContentTokenCount: c.Usage.CachedContentTokenCount,
			TotalTokenCount:         c.Usage.TotalTokenCount,
		}
	}
	if c.BlockReason != "" {
		r.PromptFeedback = &wirePromptFeedback{BlockReason: c.BlockReason, BlockReasonMessage: c.BlockReasonMessage}
	}
	if c.EmptyCandidates || (c.BlockReason != "" && c.FinishReason == "" && len(c.parts()) == 0) {
		return r
	}
	cand := wireCandidate{FinishReason: string(c.FinishReason), FinishMessage: c.FinishMessage, GroundingMetadata: c.Grounding.wire()}
	if parts := c.parts(); len(parts) > 0 {
		cand.Content = &wireContent{Parts: parts, Role: genai.RoleModel}
	}
	r.Candidates = []wireCandidate{cand}
	return r
}

// parts returns the chunk's parts in the order thought, text, call, then
// the explicit Parts. The ThoughtSignature goes on the call part, else the
// text part, else the thought part, as Gemini places it.
func (c Chunk) parts() []wirePart {
	var parts []wirePart
	if c.Thought != "" {
		parts = append(parts, wirePart{Text: &c.Thought, Thought: true})
	}
	if c.Text != "" {
		parts = append(parts, wirePart{Text: &c.Text})
	}
	if c.Call != nil {
		parts = append(parts, wirePart{FunctionCall: wireCallOf(c.Call)})
	}
	if len(c.ThoughtSignature) > 0 && len(parts) > 0 {
		parts[len(parts)-1].ThoughtSignature = c.ThoughtSignature
	}
	for _, p := range c.Parts {
		wp := wirePart{Thought: p.Thought, ThoughtSignature: p.Signature}
		if p.Text != "" || p.EmptyText {
			text := p.Text
			wp.Text = &text
		}
		if p.Call != nil {
			wp.FunctionCall = wireCallOf(p.Call)
		}
		parts = append(parts, wp)
	}
	return parts
}

func wireCallOf(c *genai.FunctionCall) *wireCall {
	return &wireCall{ID: c.ID, Name: c.Name, Args: c.Args}
}

// merge folds the chunks of a turn into the single response of a unary
// call: parts concatenated in order, the last finish reason and usage. Raw
// chunks are decoded and merged the same way when they are valid JSON.
func merge(chunks []Chunk, model, id string) wireResponse {
	out := wireResponse{ModelVersion: model, ResponseID: id}
	var cand wireCandidate
	hasCand := false
	for _, c := range chunks {
		r := c.wire(model, id)
		if c.Raw != "" {
			r = wireResponse{}
			_ = json.Unmarshal([]byte(c.Raw), &r) // best effort: unary has no event to put junk in
		}
		if r.UsageMetadata != nil {
			out.UsageMetadata = r.UsageMetadata
		}
		if r.PromptFeedback != nil {
			out.PromptFeedback = r.PromptFeedback
		}
		for _, rc := range r.Candidates {
			hasCand = true
			if rc.FinishReason != "" {
				cand.FinishReason, cand.FinishMessage = rc.FinishReason, rc.FinishMessage
			}
			if rc.GroundingMetadata != nil {
				cand.GroundingMetadata = rc.GroundingMetadata
			}
			if rc.Content != nil {
				if cand.Content == nil {
					cand.Content = &wireContent{Role: genai.RoleModel}
				}
				cand.Content.Parts = append(cand.Content.Parts, rc.Content.Parts...)
			}
		}
	}
	if hasCand {
		out.Candidates = []wireCandidate{cand}
	}
	return out
}

// estimateTokens is the fake's token count: about four bytes a token.
func estimateTokens(n int) int32 {
	return int32((n + 3) / 4)
}

// estimateUsage is the usage of a turn whose script gave none: the prompt
// from the size of the request, the output from the size of the chunks.
func estimateUsage(req Request, chunks []Chunk) *genai.GenerateContentResponseUsageMetadata {
	prompt := estimateTokens(promptBytes(req.Body))
	var out, thoughts int
	call := func(fc *genai.FunctionCall) {
		b, _ := json.Marshal(fc.Args)
		out += len(fc.Name) + len(b)
	}
	for _, c := range chunks {
		thoughts += len(c.Thought)
		out += len(c.Text)
		if c.Call != nil {
			call(c.Call)
		}
		for _, p := range c.Parts {
			if p.Thought {
				thoughts += len(p.Text)
			} else {
				out += len(p.Text)
			}
			if p.Call != nil {
				call(p.Call)
			}
		}
	}
	u := &genai.GenerateContentResponseUsageMetadata{
		PromptTokenCount:     prompt,
		CandidatesTokenCount: estimateTokens(out),
		ThoughtsTokenCount:   estimateTokens(thoughts),
	}
	u.TotalTokenCount = u.PromptTokenCount + u.CandidatesTokenCount + u.ThoughtsTokenCount
	return u
}

// promptBytes is the size of the prompt in a request body: its contents,
// system instruction and tools.
func promptBytes(body []byte) int {
	var b struct {
		Contents          json.RawMessage `json:"contents"`
		SystemInstruction json.RawMessage `json:"systemInstruction"`
		Tools             json.RawMessage `json:"tools"`
	}
	if json.Unmarshal(body, &b) != nil {
		return len(body)
	}
	return len(b.Contents) + len(b.SystemInstruction) + len(b.Tools)
}
