package agent

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/genai"
)

// DefaultGrace is how long the recovery turn may take.
const DefaultGrace = 60 * time.Second

// recoverable tells the stop reasons that get a final warning turn.
func recoverable(reason StopReason) bool {
	switch reason {
	case StopTimeout, StopMaxTurns, StopNoCompleteTask, StopBudget:
		return true
	}
	return false
}

// recover gives the model one last turn, with only complete_task, to give
// its best answer. If it does, the run reaches its goal after all (a run
// over its budget still stops with StopBudget, its answer as the result);
// otherwise it ends as it would have. The turn has its own grace period, from the
// caller's context (the run's own may have timed out).
func (r *run) recover(parent context.Context, stopped RunEnd) RunEnd {
	grace := r.def.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	ctx, cancel := context.WithTimeout(parent, grace)
	defer cancel()

	why := stopMessage(stopped)
	if r.empty {
		why = "your last answer was empty"
	}
	r.addUserText(fmt.Sprintf("You have stopped before finishing: %s. This is your final turn: call complete_task now with your best answer, and say what is left undone.", why))
	full := r.tools
	r.tools = map[string]Tool{CompleteTaskName: r.complete}
	defer func() { r.tools = full }()

	r.turn++
	r.emit(Event{Type: EventTurnStart, Text: "final warning"})
	defer r.emit(Event{Type: EventTurnEnd})
	a, err := r.callModel(ctx, []*genai.FunctionDeclaration{r.complete.Declaration()})
	if err != nil {
		stopped.Error += fmt.Sprintf("; the final warning turn failed: %v", err)
		return stopped
	}
	content := a.content
	if content == nil {
		return stopped
	}
	r.history = append(r.history, content)
	calls := functionCalls(content)
	if len(calls) == 0 {
		return stopped
	}
	responses, err := r.runTools(ctx, calls)
	r.history = append(r.history, &genai.Content{Role: genai.RoleUser, Parts: responses})
	if err != nil {
		return stopped
	}
	if result, ok := r.complete.result(); ok {
		if stopped.Reason == StopBudget {
			stopped.Result = result
			return stopped
		}
		return RunEnd{Reason: StopGoal, Result: result}
	}
	return stopped
}

func stopMessage(e RunEnd) string {
	switch e.Reason {
	case StopTimeout:
		return "the time limit was reached"
	case StopMaxTurns:
		return "the turn limit was reached"
	case StopNoCompleteTask:
		return "your last answer called no tool (every turn must call one, and the last must call complete_task)"
	case StopBudget:
		return "the run has spent its budget"
	}
	return string(e.Reason)
}

// addUserText adds text for the model to the history: to the last content
// when it is the user's (function responses), else as a new user content.
func (r *run) addUserText(text string) {
	if n := len(r.history); n > 0 && r.history[n-1].Role == genai.RoleUser {
		last := *r.history[n-1]
		last.Parts = append(append([]*genai.Part(nil), last.Parts...), &genai.Part{Text: text})
		r.history[n-1] = &last
		return
	}
	r.history = append(r.history, genai.NewContentFromText(text, genai.RoleUser))
}
