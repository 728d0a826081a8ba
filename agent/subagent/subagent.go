// Package subagent runs agents inside tool calls of other agents. A subagent
// is another harness run with its own history, tools and limits; only its
// final output returns to the parent, and its events reach the parent's
// stream as subagent_activity, so a display can show one box per subagent.
package subagent

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agentls/agentls/agent"
)

// DefaultMaxDepth bounds nesting: the main agent's subagents may not start
// subagents of their own.
const DefaultMaxDepth = 1

// Config is what subagent tools need to start runs.
type Config struct {
	Model agent.Model
	// Tools returns the tool registry of a subagent run at depth (1 for the
	// main agent's subagents). It decides the subagent's authority: callers
	// give read-only tools unless the definition asks for more.
	Tools func(def agent.Definition, depth int) []agent.Tool
	// Depth is the depth of the run the tools are given to (0: the main
	// agent); MaxDepth bounds it (0: DefaultMaxDepth).
	Depth    int
	MaxDepth int
	// Run configures the subagent runs (router, context window, clock,
	// environment); its Model, Agent, Tools and ids are set per run.
	Run agent.Config
}

// Tools returns one tool per definition, or none when subagents at this
// depth may not start others.
func Tools(defs []agent.Definition, cfg Config) []agent.Tool {
	max := cfg.MaxDepth
	if max <= 0 {
		max = DefaultMaxDepth
	}
	if cfg.Depth >= max {
		return nil
	}
	var ts []agent.Tool
	for _, d := range defs {
		ts = append(ts, Tool(d, cfg))
	}
	return ts
}

type objectiveArgs struct {
	Objective string `json:"objective" jsonschema:"what the agent should do or find out, with everything it needs to know"`
}

// Tool returns a tool that runs def as a subagent.
func Tool(def agent.Definition, cfg Config) agent.Tool {
	if def.MaxTurns <= 0 {
		def.MaxTurns = agent.DefaultSubagentMaxTurns
	}
	if def.Timeout <= 0 {
		def.Timeout = agent.DefaultSubagentTimeout
	}
	return &tool{Func: agent.NewFunc(def.Name, def.Description, func(ctx context.Context, call *agent.Call, a objectiveArgs) (agent.Result, error) {
		return run(ctx, call, def, cfg, a.Objective)
	}).WithKind(kind(def, cfg))}
}

// kind is a subagent's kind: read-only when every tool it is given is (its
// own calls are checked one by one in any case); otherwise none, so that
// starting it is asked about.
func kind(def agent.Definition, cfg Config) agent.Kind {
	if cfg.Tools == nil {
		return ""
	}
	for _, t := range cfg.Tools(def, cfg.Depth+1) {
		name := t.Declaration().Name
		if def.Tools != nil && !slices.Contains(def.Tools, name) {
			continue
		}
		if agent.KindOf(t) != agent.KindRead {
			return ""
		}
	}
	return agent.KindRead
}

type tool struct{ *agent.Func[objectiveArgs] }

func (t *tool) Describe(args json.RawMessage) string {
	var a objectiveArgs
	json.Unmarshal(args, &a)
	return fmt.Sprintf("%s: %s", t.Declaration().Name, shorten(a.Objective, 60))
}

// run runs the subagent to its end and returns its output to the parent.
func run(ctx context.Context, call *agent.Call, def agent.Definition, cfg Config, objective string) (agent.Result, error) {
	if strings.TrimSpace(objective) == "" {
		return agent.Errorf("objective is empty: say what %s should do", def.Name), nil
	}
	child, cancel := context.WithCancel(ctx)
	defer cancel()
	rc := cfg.Run
	rc.Model = cfg.Model
	rc.Agent = def
	rc.Tools = cfg.Tools(def, cfg.Depth+1)
	rc.ParentRunID = call.RunID
	rc.RunID = def.Name + "-" + call.ID
	info := agent.SubagentInfo{RunID: rc.RunID, Agent: def.Name}

	start := info
	start.Task, start.Cancel = objective, cancel
	call.Emit(agent.Event{Type: agent.EventSubagentStart, Subagent: &start})
	var end agent.RunEnd
	var said strings.Builder // the subagent's text, for a partial result
	for ev, err := range agent.Run(child, rc, agent.Task{Prompt: objective}) {
		if err != nil {
			return agent.Result{}, fmt.Errorf("subagent %s: %w", def.Name, err)
		}
		if ev.Type == agent.EventText {
			said.WriteString(ev.Text)
		}
		if ev.Type == agent.EventRunEnd {
			end = *ev.End
		}
		call.Emit(agent.Event{Type: agent.EventSubagentActivity, Subagent: &info, Inner: &ev})
	}
	done := info
	done.End = &end
	call.Emit(agent.Event{Type: agent.EventSubagentEnd, Subagent: &done})

	if err := ctx.Err(); err != nil {
		return agent.Result{}, err // the parent itself is cancelled
	}
	display := fmt.Sprintf("%s: %s", def.Name, end.Reason)
	if end.Reason == agent.StopGoal {
		return agent.Result{Output: end.Result, Display: display}, nil
	}
	msg := fmt.Sprintf("%s stopped before finishing (%s)", def.Name, end.Reason)
	if end.Reason == agent.StopAborted {
		msg = fmt.Sprintf("The user stopped %s before it finished", def.Name)
	} else if end.Error != "" {
		msg += ": " + end.Error
	}
	if partial := strings.TrimSpace(end.Result + "\n" + said.String()); partial != "" {
		msg += ".\nWhat it had found so far:\n" + shorten(partial, 4000)
	}
	return agent.Result{Output: msg, IsError: true, Display: display}, nil
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
