package geminitest

import (
	"time"

	"google.golang.org/genai"
)

// A Turn is what the server does for one generate request.
//
// A turn with a Status answers with that error. Otherwise the server waits
// Delay, streams the Chunks one event each (ChunkDelay apart), and ends
// with at most one fault: CutAfter, else Malformed, else MidStreamError.
type Turn struct {
	Chunks []Chunk

	// Status, when non-zero, answers with this HTTP error instead of the
	// chunks; ErrMessage is its message ("" means the status text).
	// RetryAfter is sent as the Retry-After header and, when it is a number
	// of seconds, as a google.rpc.RetryInfo detail in the error body.
	Status     int
	ErrMessage string
	RetryAfter string
	// ErrDetails are the error's details, as the API writes them
	// (google.rpc.RetryInfo, QuotaFailure, ErrorInfo, Help: see
	// [RetryInfo], [QuotaFailure], [ErrorInfo]), for Status and
	// MidStreamError alike.
	ErrDetails []map[string]any

	// CutAfter > 0 closes the connection abruptly after that many chunk
	// events (or after the last chunk, if there are fewer): a stream cut
	// mid-response. A unary answer is cut halfway through its body.
	CutAfter int
	// Malformed sends one event that is not JSON after the chunks (a unary
	// answer's whole body is then not JSON).
	Malformed bool
	// MidStreamError > 0 sends `data: {"error":{...}}` with this code after
	// the chunks (a unary call answers with this HTTP error). ErrMessage and
	// ErrDetails are its message and details.
	MidStreamError int

	// Delay is waited before answering, ChunkDelay between chunks. Both end
	// early when the client goes away.
	Delay      time.Duration
	ChunkDelay time.Duration

	// Check, when set, inspects the request first. A non-nil error answers
	// 400 INVALID_ARGUMENT with the error's text and is recorded in
	// [Server.Errors].
	Check func(Request) error

	// autoUsage fills the last chunk's usage at serve time from the size of
	// the request and the chunks (see Reply).
	autoUsage bool
}

// A Chunk is one streamed response event of the model.
type Chunk struct {
	Thought string              // a thought part (thought: true)
	Text    string              // a text part
	Call    *genai.FunctionCall // a function call part
	// ThoughtSignature goes on the call part, else the text part, else the
	// thought part.
	ThoughtSignature []byte
	// Parts are more parts, sent after those above, for shapes they cannot
	// make: parallel calls in one event, a signature on an empty text.
	Parts        []Part
	FinishReason genai.FinishReason
	// FinishMessage explains a finish reason (the API sends one with
	// SAFETY, RECITATION, PROHIBITED_CONTENT, BLOCKLIST, SPII, OTHER…).
	FinishMessage string
	// BlockReason and BlockReasonMessage send promptFeedback: the prompt
	// was blocked. A chunk with a block reason and no parts or finish
	// reason has no candidates, as the API answers a blocked prompt.
	BlockReason        string
	BlockReasonMessage string
	Usage              *genai.GenerateContentResponseUsageMetadata
	// Grounding sends the candidate's groundingMetadata (see [Grounded]).
	Grounding *Grounding
	// EmptyCandidates sends the event without candidates (usage and model
	// version only).
	EmptyCandidates bool
	// Raw, when set, is sent verbatim as the event's data instead.
	Raw string
}

// A Part is one part of a chunk, as the API writes it.
type Part struct {
	Text    string
	Thought bool
	Call    *genai.FunctionCall
	// Signature is the part's thoughtSignature (base64 on the wire).
	Signature []byte
	// EmptyText sends "text": "" when Text is empty: Gemini 3 ends a text
	// answer with {"text": "", "thoughtSignature": "…"}.
	EmptyText bool
}

// Parts returns a chunk of the given parts.
func Parts(parts ...Part) Chunk { return Chunk{Parts: parts} }

// SignatureOnly returns a chunk with the part Gemini 3 ends text answers
// with: an empty text carrying a thought signature.
func SignatureOnly(sig string) Chunk {
	return Parts(Part{EmptyText: true, Signature: []byte(sig)})
}

// Blocked returns a turn that answers as the API does for a blocked
// prompt: promptFeedback with the reason and its message, no candidates.
func Blocked(reason, message string) Turn {
	return Reply(Chunk{BlockReason: reason, BlockReasonMessage: message})
}

// Finish returns a turn that ends with reason and its message after the
// chunks.
func Finish(reason genai.FinishReason, message string, chunks ...Chunk) Turn {
	if len(chunks) == 0 {
		chunks = []Chunk{{}}
	}
	chunks = append([]Chunk(nil), chunks...)
	chunks[len(chunks)-1].FinishReason = reason
	chunks[len(chunks)-1].FinishMessage = message
	return Reply(chunks...)
}

// Thought returns a chunk with one thought part.
func Thought(s string) Chunk { return Chunk{Thought: s} }

// Text returns a chunk with one text part.
func Text(s string) Chunk { return Chunk{Text: s} }

// Call returns a chunk with one function call without an id, as the Gemini
// API often sends them.
func Call(name string, args map[string]any) Chunk {
	return Chunk{Call: &genai.FunctionCall{Name: name, Args: args}}
}

// CallID returns a chunk with one function call carrying an id.
func CallID(id, name string, args map[string]any) Chunk {
	return Chunk{Call: &genai.FunctionCall{ID: id, Name: name, Args: args}}
}

// Reply returns a normal streamed turn. Unless a chunk already has one, the
// last chunk gets FinishReason STOP; unless a chunk has usage, the last
// chunk gets a usage estimated when the turn is served (prompt from the
// request's size, output and thoughts from the chunks', four bytes a
// token). Reply() with no chunks answers one empty STOP chunk.
func Reply(chunks ...Chunk) Turn {
	t := Turn{Chunks: append([]Chunk(nil), chunks...)}
	t.finish()
	return t
}

// finish gives a turn that ends normally its finish reason and usage.
func (t *Turn) finish() {
	if len(t.Chunks) == 0 {
		t.Chunks = []Chunk{{}}
	}
	hasReason, hasUsage := false, false
	for _, c := range t.Chunks {
		hasReason = hasReason || c.FinishReason != ""
		hasUsage = hasUsage || c.Usage != nil
	}
	if last := &t.Chunks[len(t.Chunks)-1]; !hasReason && last.BlockReason == "" {
		last.FinishReason = genai.FinishReasonStop
	}
	t.autoUsage = !hasUsage
}

// chunksFor returns the chunks to send for req, with the estimated usage
// filled in when the turn asks for it.
func (t Turn) chunksFor(req Request) []Chunk {
	if !t.autoUsage || len(t.Chunks) == 0 {
		return t.Chunks
	}
	chunks := append([]Chunk(nil), t.Chunks...)
	chunks[len(chunks)-1].Usage = estimateUsage(req, chunks)
	return chunks
}
