package agent_test

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// answers is an Approver that answers the loop question from a list and
// records what it was asked.
type answers struct {
	mu    sync.Mutex
	say   []bool
	asked []agent.Approval
}

func (a *answers) Approve(ctx context.Context, ap agent.Approval) (bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, ap)
	if len(a.say) == 0 {
		return false, nil
	}
	ok := a.say[0]
	a.say = a.say[1:]
	return ok, nil
}

// sameCall is n turns making the same call.
func sameCall(n int) []geminitest.Turn {
	var turns []geminitest.Turn
	for range n {
		turns = append(turns, geminitest.Reply(geminitest.Call("echo", map[string]any{"text": "again"})))
	}
	return turns
}

func TestLoopDetectionAsks(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		approver *answers // nil: no one to ask
		off      bool
		turns    []geminitest.Turn
		want     agent.RunEnd
		asked    int
	}{
		{
			name:  "no one to ask: stops as before",
			turns: sameCall(10),
			want:  agent.RunEnd{Reason: agent.StopLoop, Error: "the model kept repeating the same tool call", Turns: 10},
		},
		{
			name:     "the user says stop",
			approver: &answers{say: []bool{false}},
			turns:    sameCall(10),
			want:     agent.RunEnd{Reason: agent.StopLoop, Error: "the model kept repeating the same tool call", Turns: 10},
			asked:    1,
		},
		{
			name:     "the user says keep going",
			approver: &answers{say: []bool{true}},
			turns:    append(sameCall(12), geminitest.Reply(complete("got there"))),
			want:     agent.RunEnd{Reason: agent.StopGoal, Result: "got there", Turns: 13},
			asked:    1,
		},
		{
			name:  "detection off",
			off:   true,
			turns: append(sameCall(12), geminitest.Reply(complete("got there"))),
			want:  agent.RunEnd{Reason: agent.StopGoal, Result: "got there", Turns: 13},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv, m := fake(t, tt.turns...)
			cfg := agent.Config{Model: m, Tools: []agent.Tool{echoTool()}, NoLoopDetection: tt.off}
			if tt.approver != nil {
				cfg.Approver = tt.approver
			}
			evs := collect(t, t.Context(), cfg, agent.Task{Prompt: "go"})
			if diff := cmp.Diff(tt.want, end(evs)); diff != "" {
				t.Errorf("run end (-want +got):\n%s", diff)
			}
			warned := 0
			for _, r := range srv.Requests() {
				if strings.Contains(lastUserText(r), "looks like a loop") {
					warned++
				}
			}
			if want := map[bool]int{true: 0, false: 1}[tt.off]; warned != want {
				t.Errorf("the model was warned %d times, want %d", warned, want)
			}
			var requested, decided []agent.Approval
			for _, ev := range evs {
				switch ev.Type {
				case agent.EventApprovalRequested:
					requested = append(requested, *ev.Approval)
				case agent.EventApprovalDecided:
					decided = append(decided, *ev.Approval)
				}
			}
			if len(requested) != tt.asked || len(decided) != tt.asked {
				t.Fatalf("approval events: %d requested, %d decided; want %d", len(requested), len(decided), tt.asked)
			}
			if tt.asked == 0 {
				return
			}
			ap := tt.approver.asked[0]
			if ap.Kind != agent.ApprovalLoop || ap.Tool != "loop_detection" || !strings.HasSuffix(ap.Description, "Keep going?") {
				t.Errorf("the question = %+v, want a loop question", ap)
			}
			if requested[0].Kind != agent.ApprovalLoop || decided[0].Allowed == nil || *decided[0].Allowed != (tt.want.Reason == agent.StopGoal) {
				t.Errorf("events: requested %+v, decided %+v", requested[0], decided[0])
			}
		})
	}
}

// TestTextLoopAsks: a text loop warns, then asks; keep going warns again.
func TestTextLoopAsks(t *testing.T) {
	t.Parallel()
	var chunks []geminitest.Chunk
	for range 12 {
		chunks = append(chunks, geminitest.Text("I will check the file."))
	}
	loop := geminitest.Reply(chunks...)
	ap := &answers{say: []bool{true}}
	srv, m := fake(t, loop, loop, geminitest.Reply(complete("ok then")))
	evs := collect(t, t.Context(), agent.Config{Model: m, Approver: ap}, agent.Task{Prompt: "go"})
	if got := end(evs); got.Reason != agent.StopGoal {
		t.Errorf("run end = %+v, want goal", got)
	}
	if len(ap.asked) != 1 || ap.asked[0].Kind != agent.ApprovalLoop {
		t.Errorf("asked %+v, want one loop question", ap.asked)
	}
	if !strings.Contains(lastUserText(srv.Requests()[2]), "repeating the same text") {
		t.Errorf("after keep going, the model was told %q", lastUserText(srv.Requests()[2]))
	}
}
