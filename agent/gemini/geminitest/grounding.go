package geminitest

// A Grounding is a candidate's groundingMetadata as the Gemini API sends it
// with an answer grounded in Google Search (the googleSearch tool): the
// queries it ran, the web sources, and which passages of the answer each
// source supports. The API sends it on the last chunk of a stream.
type Grounding struct {
	Queries []string
	Sources []Source
	// Supports are passages of the answer's text, by byte offsets.
	Supports []Support
	// EntryPoint is searchEntryPoint.renderedContent: the HTML of the
	// search suggestions a UI must show.
	EntryPoint string
}

// A Source is a web groundingChunk. The Gemini API sends a redirect URI of
// vertexaisearch.cloud.google.com and the site's domain as its title.
type Source struct {
	URI, Title string
}

// A Support ties a passage of the answer, bytes [Start, End) of its text,
// to sources by index.
type Support struct {
	Start, End int
	Text       string
	Sources    []int
	Confidence []float64
}

// Grounded returns a turn that answers text grounded in g, as the API
// streams a googleSearch answer: the text, then a last chunk carrying the
// finish reason and the grounding metadata.
func Grounded(text string, g Grounding) Turn {
	return Reply(Text(text), Chunk{Grounding: &g})
}

// The wire shape of groundingMetadata: proto3 JSON, so a zero startIndex
// is left out, as the API leaves it out.
type wireGrounding struct {
	SearchEntryPoint  *wireEntryPoint        `json:"searchEntryPoint,omitempty"`
	GroundingChunks   []wireGroundingChunk   `json:"groundingChunks,omitempty"`
	GroundingSupports []wireGroundingSupport `json:"groundingSupports,omitempty"`
	WebSearchQueries  []string               `json:"webSearchQueries,omitempty"`
}

type wireEntryPoint struct {
	RenderedContent string `json:"renderedContent"`
}

type wireGroundingChunk struct {
	Web *wireWebSource `json:"web,omitempty"`
}

type wireWebSource struct {
	URI   string `json:"uri"`
	Title string `json:"title"`
}

type wireGroundingSupport struct {
	Segment               wireSegment `json:"segment"`
	GroundingChunkIndices []int       `json:"groundingChunkIndices"`
	ConfidenceScores      []float64   `json:"confidenceScores,omitempty"`
}

type wireSegment struct {
	StartIndex int    `json:"startIndex,omitempty"`
	EndIndex   int    `json:"endIndex"`
	Text       string `json:"text,omitempty"`
}

func (g *Grounding) wire() *wireGrounding {
	if g == nil {
		return nil
	}
	w := &wireGrounding{WebSearchQueries: g.Queries}
	if g.EntryPoint != "" {
		w.SearchEntryPoint = &wireEntryPoint{RenderedContent: g.EntryPoint}
	}
	for _, s := range g.Sources {
		w.GroundingChunks = append(w.GroundingChunks, wireGroundingChunk{Web: &wireWebSource{URI: s.URI, Title: s.Title}})
	}
	for _, s := range g.Supports {
		w.GroundingSupports = append(w.GroundingSupports, wireGroundingSupport{
			Segment: wireSegment{StartIndex: s.Start, EndIndex: s.End, Text: s.Text}, GroundingChunkIndices: s.Sources, ConfidenceScores: s.Confidence})
	}
	return w
}
