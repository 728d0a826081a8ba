package agent

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"iter"
	"slices"
	"time"

	"google.golang.org/genai"
)

// Config configures one run.
type Config struct {
	Model Model
	Agent Definition
	// Tools is the registry the agent's tools are taken from. complete_task
	// is added by the harness.
	Tools []Tool
	// Context is the project context files and Environment where the run
	// works, both for the system prompt; System is more text appended to it.
	Context     []ContextFile
	Environment *Environment
	System      string
	// Skills are the skills the system prompt lists, for activate_skill.
	Skills []SkillInfo

	// Router routes runs whose model is ModelAuto; its empty fields are
	// DefaultRouter's.
	Router Router
	// ContextWindow is the model's context window in tokens (0: 1,048,576);
	// history is compressed when the prompt passes CompressAt of it (0: 0.5).
	ContextWindow int
	CompressAt    float64

	// Policy decides which tool calls run, are refused or need approval;
	// nil: every call runs, except calls of Approvable tools, which ask.
	Policy Policy
	// Approver asks the user to allow the calls the Policy asks about; nil:
	// such calls are refused with an error result. It is also asked
	// whether to keep going when the model repeats itself after a warning
	// (see [ApprovalLoop]); nil: the run stops.
	Approver Approver
	// NoLoopDetection turns loop detection off: a model that repeats itself
	// is neither warned nor stopped (the turn limit still holds).
	NoLoopDetection bool

	// History is the conversation the run continues (a session's earlier
	// runs), as the model last saw it; the task is added to it. It is
	// compressed like any history. nil: the run starts from nothing.
	History []*genai.Content
	// SaveHistory, when set, is told how the history changed, on the run's
	// goroutine: before every model call (the history as sent) and once
	// more when the run ends. Applying every change, in order, to History
	// gives the run's history, thought signatures included.
	SaveHistory func(HistoryChange)

	// Prices prices the model calls (nil: [Prices]); ModelName is the model
	// a request that names none goes to, for its price.
	Prices    PriceTable
	ModelName string
	// MaxBudget is what the run may spend, in US dollars (0: no limit). A
	// run that passes it gets one recovery turn, then stops with
	// StopBudget. Subagents' calls count in their parent's spending.
	MaxBudget float64

	// BeforeComplete, when set, runs when complete_task is called with a
	// valid result, before the run ends: a non-empty feedback refuses the
	// completion and goes back to the model (a proposal of the run's staged
	// changes that the user rejected, say). The run's clock stops meanwhile.
	BeforeComplete func(ctx context.Context, result string) (feedback string, err error)

	RunID       string // "" generates "<agent>-<hex>"
	ParentRunID string
	Now         func() time.Time // nil: time.Now
}

// errTimeout is the cancellation cause when a run's time limit passes.
var errTimeout = errors.New("time limit reached")

// Run starts a run and returns its event stream. The stream ends with exactly
// one run_end event; every outcome, failures included, is reported there. The
// stream yields a non-nil error only for an invalid Config, before any event.
// Stopping the iteration early cancels the run.
func Run(ctx context.Context, cfg Config, task Task) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		r, err := newRun(cfg)
		if err != nil {
			yield(Event{}, err)
			return
		}
		r.yield = yield
		r.loop(ctx, task)
	}
}

type run struct {
	id        string
	parent    string
	def       Definition
	model     Model
	sysPrompt string
	now       func() time.Time
	tools     map[string]Tool
	decls     []*genai.FunctionDeclaration
	complete  *completeTool
	clock     *clock
	perm      permission // Config.Policy and Config.Approver

	yield     func(Event, error) bool
	gone      bool // the consumer stopped iterating
	cancel    context.CancelCauseFunc
	history   []*genai.Content
	usage     Usage
	turn      int
	subject   string // the current thought subject
	phase     *phase // the running tool phase, nil between phases
	router    Router
	window    int                    // context window, tokens
	threshold float64                // compression threshold, fraction of window
	modelName string                 // the model of every call, "" for the Model's default; set by routing
	fixed     int                    // estimated tokens of the preamble
	sizes     map[*genai.Content]int // estimated tokens of history contents
	loops     loopDetector
	noSummary bool // a summary failed: compression trims from now on
	withheld  int  // answers withheld by the model's filters, in a row
	empty     bool // the last answer was empty (a retry layer asked again)

	saved        []*genai.Content // the history as SaveHistory last heard it
	saveHist     func(HistoryChange)
	prices       PriceTable
	modelDefault string  // the model of requests that name none, for prices
	budget       float64 // US dollars, 0: none
}

func newRun(cfg Config) (*run, error) {
	if cfg.Model == nil {
		return nil, errors.New("agent: no model")
	}
	def := cfg.Agent
	if def.Name == "" {
		def.Name = "main"
	}
	if def.MaxTurns <= 0 {
		def.MaxTurns = DefaultMaxTurns
	}
	r := &run{
		id:     cfg.RunID,
		parent: cfg.ParentRunID,
		def:    def,
		model:  cfg.Model,
		now:    cfg.Now,
		tools:  make(map[string]Tool),
	}
	if r.now == nil {
		r.now = time.Now
	}
	r.perm = permission{policy: cfg.Policy, approver: cfg.Approver}
	r.history = slices.Clone(cfg.History)
	r.saved, r.saveHist = cfg.History, cfg.SaveHistory
	r.prices, r.modelDefault, r.budget = cfg.Prices, cfg.ModelName, cfg.MaxBudget
	if r.prices == nil {
		r.prices = Prices
	}
	r.loops.off = cfg.NoLoopDetection
	r.router = cfg.Router.orDefaults()
	r.window, r.threshold = cfg.ContextWindow, cfg.CompressAt
	if r.window <= 0 {
		r.window = 1 << 20
	}
	if r.threshold <= 0 || r.threshold > 1 {
		r.threshold = 0.5
	}
	if r.id == "" {
		r.id = def.Name + "-" + randomHex(3)
	}
	r.sysPrompt = buildSystemPrompt(cfg, def)
	var err error
	if r.complete, err = newCompleteTool(def.OutputSchema); err != nil {
		return nil, err
	}
	r.complete.before = cfg.BeforeComplete
	all := append(slices.Clone(cfg.Tools), r.complete)
	for _, t := range all {
		name := t.Declaration().Name
		if def.Tools != nil && t != Tool(r.complete) && !slices.Contains(def.Tools, name) {
			continue
		}
		if _, dup := r.tools[name]; dup {
			return nil, fmt.Errorf("agent: tool %q registered twice", name)
		}
		r.tools[name] = t
		r.decls = append(r.decls, t.Declaration())
	}
	return r, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// emit yields an event on the run's goroutine, filling its common fields.
func (r *run) emit(ev Event) {
	if ev.Type == EventSubagentActivity && ev.Inner != nil && ev.Inner.Type == EventRunEnd && ev.Inner.Usage != nil {
		r.usage.Add(*ev.Inner.Usage) // what a subagent spent, the parent spent
	}
	if r.gone {
		return
	}
	ev.RunID = r.id
	ev.ParentRunID = r.parent
	ev.Agent = r.def.Name
	if ev.Turn == 0 {
		ev.Turn = r.turn
	}
	if ev.PromptID == "" && r.turn > 0 {
		ev.PromptID = r.promptID()
	}
	if ev.Time.IsZero() {
		ev.Time = r.now()
	}
	if !r.yield(ev, nil) {
		r.gone = true
		r.cancel(context.Canceled)
	}
}

// emitAsync hands an event from a tool goroutine to the run's goroutine.
func (r *run) emitAsync(ev Event) {
	if p := r.phase; p != nil {
		p.send(ev)
	}
}

func (r *run) promptID() string { return fmt.Sprintf("%s#%d", r.id, r.turn) }

func (r *run) loop(parent context.Context, task Task) {
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	r.cancel = cancel
	r.clock = newClock(r.def.Timeout, r.now, func() { cancel(errTimeout) })
	defer r.clock.stop()

	r.emit(Event{Type: EventRunStart, Text: task.Prompt})
	r.addUserText(taskMessage(task))
	r.route(ctx, task)
	end := r.turns(ctx)
	if recoverable(end.Reason) && !r.gone && parent.Err() == nil {
		end = r.recover(parent, end)
	}
	r.saveHistory()
	end.Turns = r.turn
	usage := r.usage
	r.emit(Event{Type: EventRunEnd, End: &end, Usage: &usage})
}

// turns runs turns until the run stops, and says why it stopped.
func (r *run) turns(ctx context.Context) RunEnd {
	for {
		if err := ctx.Err(); err != nil {
			return r.cancelled(ctx)
		}
		if r.turn >= r.def.MaxTurns {
			return RunEnd{Reason: StopMaxTurns, Error: fmt.Sprintf("reached the limit of %d turns", r.def.MaxTurns)}
		}
		if r.overBudget() {
			return RunEnd{Reason: StopBudget, Error: fmt.Sprintf("spent %s, more than the run's budget of %s", Dollars(r.usage.Cost), Dollars(r.budget))}
		}
		r.turn++
		r.emit(Event{Type: EventTurnStart})
		end, done := r.oneTurn(ctx)
		r.emit(Event{Type: EventTurnEnd})
		if done {
			return end
		}
	}
}

// oneTurn calls the model and runs the tools it asks for. done reports that
// the run stops, with end saying why.
func (r *run) oneTurn(ctx context.Context) (end RunEnd, done bool) {
	if end, stop := r.compress(ctx); stop {
		return end, true
	}
	a, err := r.callModel(ctx, r.decls)
	if err != nil {
		if ctx.Err() != nil {
			return r.cancelled(ctx), true
		}
		return RunEnd{Reason: StopError, Error: err.Error()}, true
	}
	content := a.content
	if r.loops.textLooping() {
		// The model repeats itself: its stream was cut short.
		r.history = append(r.history, withoutCalls(content))
		return r.loopStrike(ctx, "You are repeating the same text over and over.")
	}
	if end, done, handled := r.badFinish(a); handled {
		return end, done
	}
	r.history = append(r.history, content)
	calls := functionCalls(content)
	if len(calls) == 0 {
		return RunEnd{Reason: StopNoCompleteTask, Result: modelText(content),
			Error: "the model stopped without calling complete_task"}, true
	}
	var note string
	if r.loops.callsLooping(calls) {
		if r.loops.strikes > 0 {
			if !r.keepGoing(ctx, "The model has made the same tool call with the same arguments many times in a row.") {
				if ctx.Err() != nil {
					return r.cancelled(ctx), true
				}
				return RunEnd{Reason: StopLoop, Error: "the model kept repeating the same tool call"}, true
			}
		} else {
			r.loops.strikes++
			note = loopFeedback("You have made the same tool call with the same arguments several times in a row.")
		}
	}
	responses, err := r.runTools(ctx, calls)
	if note != "" {
		responses = append(responses, &genai.Part{Text: note})
	}
	r.history = append(r.history, &genai.Content{Role: genai.RoleUser, Parts: responses})
	if err != nil {
		if ctx.Err() != nil {
			return r.cancelled(ctx), true
		}
		return RunEnd{Reason: StopError, Error: err.Error()}, true
	}
	if result, ok := r.complete.result(); ok {
		return RunEnd{Reason: StopGoal, Result: result}, true
	}
	return RunEnd{}, false
}

func functionCalls(c *genai.Content) []*genai.FunctionCall {
	var calls []*genai.FunctionCall
	for _, p := range c.Parts {
		if p.FunctionCall != nil {
			calls = append(calls, p.FunctionCall)
		}
	}
	return calls
}

// cancelled tells a timeout from a cancellation by the caller.
func (r *run) cancelled(ctx context.Context) RunEnd {
	if errors.Is(context.Cause(ctx), errTimeout) {
		return RunEnd{Reason: StopTimeout, Error: fmt.Sprintf("reached the time limit of %s", r.def.Timeout)}
	}
	return RunEnd{Reason: StopAborted, Error: "cancelled"}
}

func modelText(c *genai.Content) string {
	var s string
	for _, p := range c.Parts {
		if !p.Thought {
			s += p.Text
		}
	}
	return s
}
