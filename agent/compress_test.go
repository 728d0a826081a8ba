package agent

import (
	"context"
	"iter"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// scripted answers each call with the next text, or an error.
type scripted struct {
	answers []string // "" answers with an error
	reqs    []*Request
}

func (s *scripted) Generate(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		s.reqs = append(s.reqs, req)
		a := s.answers[0]
		s.answers = s.answers[1:]
		if a == "" {
			yield(nil, context.DeadlineExceeded)
			return
		}
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(a, genai.RoleModel)}}}, nil)
	}
}

// history builds a task and n rounds of one call with a response of size
// bytes each.
func history(n, size int) []*genai.Content {
	h := []*genai.Content{genai.NewContentFromText("the task", genai.RoleUser)}
	for i := range n {
		h = append(h,
			&genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{Name: "read_file", Args: map[string]any{"i": i}}}}},
			&genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{Name: "read_file", Response: map[string]any{"output": strings.Repeat("y", size)}}}}})
	}
	return h
}

func TestCompressSteps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		window  int
		answers []string
		method  string
	}{
		{name: "under the threshold", window: 1 << 20},
		{name: "masking is enough", window: 12000, method: "mask"},
		{name: "summary", window: 3000, answers: []string{"<state_snapshot>did ten reads</state_snapshot>"}, method: "summary"},
		{name: "summary fails, trim", window: 3000, answers: []string{""}, method: "trim"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := &scripted{answers: tt.answers}
			r, err := newRun(Config{Model: m, ContextWindow: tt.window})
			if err != nil {
				t.Fatal(err)
			}
			var evs []Event
			r.yield = func(ev Event, _ error) bool { evs = append(evs, ev); return true }
			orig := history(10, 3000)
			r.history = append([]*genai.Content(nil), orig...)
			r.compress(t.Context())
			if tt.method == "" {
				if len(evs) != 0 || len(r.history) != len(orig) {
					t.Fatalf("compressed under the threshold: %v", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].Compressed.Method != tt.method || evs[0].Compressed.After >= evs[0].Compressed.Before {
				t.Fatalf("events = %+v, want one %s", evs, tt.method)
			}
			h := r.history
			if h[0].Parts[0].Text != "the task" || h[0].Role != genai.RoleUser {
				t.Error("the task message was not kept first")
			}
			for i, c := range h {
				if c.Role == genai.RoleModel && c.Parts[0].FunctionCall != nil {
					if i+1 >= len(h) || h[i+1].Parts[0].FunctionResponse == nil {
						t.Errorf("content %d: a function call lost its response", i)
					}
				}
				if i > 0 && c.Role == h[i-1].Role {
					t.Errorf("contents %d and %d have the same role", i-1, i)
				}
			}
			// The newest round is always kept verbatim.
			if got := h[len(h)-1].Parts[0].FunctionResponse.Response["output"]; got != orig[len(orig)-1].Parts[0].FunctionResponse.Response["output"] {
				t.Error("the newest tool output was changed")
			}
			// The original contents were not modified in place.
			if orig[2].Parts[0].FunctionResponse.Response["output"] != strings.Repeat("y", 3000) {
				t.Error("compression modified shared history in place")
			}
			switch tt.method {
			case "summary":
				if !strings.Contains(h[0].Parts[len(h[0].Parts)-1].Text, "did ten reads") {
					t.Errorf("summary not in the first message: %+v", h[0].Parts)
				}
				cfg := m.reqs[0].Config
				if cfg.MaxOutputTokens != summaryMaxTokens || cfg.ToolConfig.FunctionCallingConfig.Mode != genai.FunctionCallingConfigModeNone {
					t.Errorf("summary request config: max %d, mode %v", cfg.MaxOutputTokens, cfg.ToolConfig.FunctionCallingConfig.Mode)
				}
			case "trim":
				if len(h) != len(orig) {
					t.Errorf("trim changed the number of contents: %d -> %d", len(orig), len(h))
				}
			}
		})
	}
}
