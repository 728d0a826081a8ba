package agent

import (
	"context"
	"iter"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
		name         string
		rounds, size int // the history: rounds of one call and an output of size bytes
		window       int
		answers      []string
		method       string
		dropped      bool // the oldest rounds were dropped
	}{
		{name: "under the threshold", rounds: 10, size: 3000, window: 1 << 20},
		{name: "masking is enough", rounds: 10, size: 3000, window: 12000, method: "mask"},
		{name: "summary", rounds: 40, size: 1500, window: 16000, answers: []string{"<state_snapshot>did forty reads</state_snapshot>"}, method: "summary"},
		{name: "summary fails, trim", rounds: 40, size: 1500, window: 16000, answers: []string{""}, method: "trim"},
		{name: "empty summary, trim", rounds: 40, size: 1500, window: 16000, answers: []string{" \n"}, method: "trim"},
		{name: "summary not enough: the oldest dropped", rounds: 40, size: 1500, window: 10000,
			answers: []string{"<state_snapshot>did forty reads</state_snapshot>"}, method: "trim", dropped: true},
		{name: "trim not enough: the oldest dropped", rounds: 40, size: 1500, window: 10000, answers: []string{""}, method: "trim", dropped: true},
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
			orig := history(tt.rounds, tt.size)
			r.history = append([]*genai.Content(nil), orig...)
			if end, stop := r.compress(t.Context()); stop {
				t.Fatalf("compression stopped the run: %+v", end)
			}
			if tt.method == "" {
				if len(evs) != 0 || len(r.history) != len(orig) {
					t.Fatalf("compressed under the threshold: %v", evs)
				}
				return
			}
			if len(evs) != 1 || evs[0].Compressed.Method != tt.method || evs[0].Compressed.After >= evs[0].Compressed.Before {
				t.Fatalf("events = %+v, want one %s", evs, tt.method)
			}
			if limit := tt.window / 2; evs[0].Compressed.After > limit {
				t.Errorf("after compression: %d tokens, over the threshold of %d", evs[0].Compressed.After, limit)
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
			if orig[2].Parts[0].FunctionResponse.Response["output"] != strings.Repeat("y", tt.size) {
				t.Error("compression modified shared history in place")
			}
			note := h[0].Parts[len(h[0].Parts)-1].Text
			if got := strings.Contains(note, "earlier messages were dropped"); got != tt.dropped {
				t.Errorf("the task message ends %q; dropped = %v, want %v", note, got, tt.dropped)
			}
			switch {
			case tt.method == "summary":
				if !strings.Contains(note, "did forty reads") {
					t.Errorf("summary not in the first message: %+v", h[0].Parts)
				}
			case tt.method == "trim" && !tt.dropped:
				if len(h) != len(orig) {
					t.Errorf("trim changed the number of contents: %d -> %d", len(orig), len(h))
				}
			}
			if len(tt.answers) > 0 {
				cfg := m.reqs[0].Config
				if cfg.MaxOutputTokens <= summaryMaxTokens || cfg.ToolConfig.FunctionCallingConfig.Mode != genai.FunctionCallingConfigModeNone {
					t.Errorf("summary request config: max %d (want room for thinking over %d), mode %v", cfg.MaxOutputTokens, summaryMaxTokens, cfg.ToolConfig.FunctionCallingConfig.Mode)
				}
				if tc := cfg.ThinkingConfig; tc == nil || tc.ThinkingLevel != genai.ThinkingLevelLow {
					t.Errorf("summary thinking = %+v, want level LOW for the default model's family", tc)
				}
			}
		})
	}
}

// TestCompressNoSummaryAgain: after a failed summary, later compressions
// trim without asking for one (each would re-send the old history).
func TestCompressNoSummaryAgain(t *testing.T) {
	t.Parallel()
	m := &scripted{answers: []string{""}}
	r, err := newRun(Config{Model: m, ContextWindow: 10000})
	if err != nil {
		t.Fatal(err)
	}
	var methods []string
	r.yield = func(ev Event, _ error) bool {
		methods = append(methods, ev.Compressed.Method)
		return true
	}
	r.history = history(40, 1500)
	r.compress(t.Context())
	// The history grows past the threshold again.
	r.history = append(r.history, history(40, 1500)[1:]...)
	r.compress(t.Context())
	if len(m.reqs) != 1 {
		t.Errorf("summary calls = %d, want 1", len(m.reqs))
	}
	if diff := cmp.Diff([]string{"trim", "trim"}, methods); diff != "" {
		t.Errorf("methods (-want +got):\n%s", diff)
	}
}

// TestCompressStopsWhenNothingFits: a task message larger than the context
// window cannot be compressed; the run stops and says why.
func TestCompressStopsWhenNothingFits(t *testing.T) {
	t.Parallel()
	m := &scripted{answers: []string{"<state_snapshot>s</state_snapshot>"}}
	r, err := newRun(Config{Model: m, ContextWindow: 10000})
	if err != nil {
		t.Fatal(err)
	}
	r.yield = func(Event, error) bool { return true }
	r.history = history(4, 100)
	r.history[0] = genai.NewContentFromText(strings.Repeat("x", 80000), genai.RoleUser)
	end, stop := r.compress(t.Context())
	if !stop || end.Reason != StopError || !strings.Contains(end.Error, "no longer fits the model's context window") {
		t.Errorf("compress = %+v, %v; want a stop that says the conversation does not fit", end, stop)
	}
}

// TestCompressHugeNewestOutput: when even the newest turn is over the
// threshold, its tool output is trimmed too, and the run goes on.
func TestCompressHugeNewestOutput(t *testing.T) {
	t.Parallel()
	m := &scripted{answers: []string{"<state_snapshot>s</state_snapshot>"}}
	r, err := newRun(Config{Model: m, ContextWindow: 20000})
	if err != nil {
		t.Fatal(err)
	}
	var evs []Event
	r.yield = func(ev Event, _ error) bool { evs = append(evs, ev); return true }
	r.history = append(history(3, 100), history(1, 60000)[1:]...)
	if end, stop := r.compress(t.Context()); stop {
		t.Fatalf("stopped: %+v", end)
	}
	if len(evs) != 1 || evs[0].Compressed.Method != "trim" || evs[0].Compressed.After > 10000 {
		t.Fatalf("events %+v, want one trim under the threshold", evs)
	}
	last := r.history[len(r.history)-1].Parts[0].FunctionResponse.Response["output"].(string)
	if !strings.Contains(last, "omitted to save context") {
		t.Errorf("the newest output is %d bytes, want it trimmed", len(last))
	}
}
