package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"google.golang.org/genai"
)

// A Tool is a function the model can call.
//
// Failures the model can fix (bad arguments, no match, a refused path) come
// back as a Result with IsError set and a nil error. A non-nil error stops
// the run: return one only when the run cannot go on (cancellation, a broken
// invariant).
type Tool interface {
	Declaration() *genai.FunctionDeclaration
	Run(ctx context.Context, call *Call) (Result, error)
}

// A Kind says what a tool's calls do. The policy decides by it which calls
// run without asking, which are proposals, which need the user's approval,
// and which plan mode keeps; every tool declares its own (see [Kinded]).
type Kind string

// Kinds.
const (
	// KindRead reads the workspace, or asks the model, and changes nothing:
	// its calls run without asking, in plan mode too.
	KindRead Kind = "read"
	// KindFetch reads from outside the workspace (the web) and changes
	// nothing: plan mode keeps it, but each call is asked about unless a
	// rule allows it.
	KindFetch Kind = "fetch"
	// KindEdit changes files through proposals the user confirms: the
	// proposal is the question. Plan mode refuses it.
	KindEdit Kind = "edit"
	// KindExecute runs programs: each call is asked about unless a rule
	// allows it. Plan mode refuses it.
	KindExecute Kind = "execute"
)

// Kinded is implemented by tools that say what kind their calls are. A
// tool of no kind is asked about, and refused in plan mode, unless a rule
// names it.
type Kinded interface {
	Kind() Kind
}

// KindOf returns the kind t declares, "" for none.
func KindOf(t Tool) Kind {
	if k, ok := t.(Kinded); ok {
		return k.Kind()
	}
	return ""
}

// Locker is implemented by tools that change the workspace. Locks names the
// resources a call changes: calls of one turn that share a lock run one after
// another in the model's order; "*" conflicts with every other lock. Tools
// without Locker are read-only and run in parallel.
type Locker interface {
	Locks(args json.RawMessage) []string
}

// Describer is implemented by tools that can say in a few words what a call
// does ("Reading main.go"), for progress displays.
type Describer interface {
	Describe(args json.RawMessage) string
}

// A Result is what a tool call gives back to the model.
type Result struct {
	Output  string // what the model reads
	IsError bool
	Display string // a short line for progress displays; "" = none
}

// Errorf returns an error result for the model.
func Errorf(format string, args ...any) Result {
	return Result{Output: fmt.Sprintf(format, args...), IsError: true}
}

// A Call is one function call of the model, handed to [Tool.Run].
type Call struct {
	ID       string
	Name     string
	Args     json.RawMessage
	RunID    string
	PromptID string

	run *run
}

// Emit adds an event to the run's stream. Events from a call carry the
// call's run, turn and prompt id. Emit is safe to call from any goroutine
// while the call runs.
func (c *Call) Emit(ev Event) {
	if c.run == nil {
		return
	}
	ev.PromptID = c.PromptID
	c.run.emitAsync(ev)
}

// UserWait stops the run's clock while the user is being asked something; call
// the returned function when the answer is in. Time spent waiting for the user
// does not count against the run's time limit.
func (c *Call) UserWait() (resume func()) {
	if c.run == nil {
		return func() {}
	}
	return c.run.clock.pause()
}

// A Func is a tool whose arguments are decoded into a Go type. Its parameter
// schema is derived from A: json tags name the parameters, fields with
// omitempty or omitzero are optional, jsonschema tags describe them.
type Func[A any] struct {
	decl     *genai.FunctionDeclaration
	resolved *jsonschema.Resolved
	kind     Kind
	run      func(ctx context.Context, call *Call, args A) (Result, error)
}

// NewFunc returns a typed tool. It panics if A has no JSON schema: that is a
// programming error caught by any test that builds the tool.
func NewFunc[A any](name, description string, run func(ctx context.Context, call *Call, args A) (Result, error)) *Func[A] {
	t := reflect.TypeFor[A]()
	c, ok := funcSchemas.Load(t)
	if !ok {
		schema, err := jsonschema.For[A](nil)
		if err != nil {
			panic(fmt.Sprintf("tool %s: schema: %v", name, err))
		}
		notNull(schema)
		c, _ = funcSchemas.LoadOrStore(t, argSchema{schema, resolve(name, schema)})
	}
	as := c.(argSchema)
	return &Func[A]{decl: declaration(name, description, as.schema), resolved: as.resolved, run: run}
}

// funcSchemas holds the schema of each argument type NewFunc has seen,
// reflected and resolved once per process: every run builds its tools, and
// a schema is the costly part of a tool. Schemas are never changed once
// made, so tools share them.
var funcSchemas sync.Map // reflect.Type → argSchema

type argSchema struct {
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

func resolve(name string, schema *jsonschema.Schema) *jsonschema.Resolved {
	resolved, err := schema.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: resolve schema: %v", name, err))
	}
	return resolved
}

func declaration(name, description string, schema *jsonschema.Schema) *genai.FunctionDeclaration {
	return &genai.FunctionDeclaration{Name: name, Description: strings.TrimSpace(description), ParametersJsonSchema: schema}
}

// notNull turns the ["null", T] types that Go slices and pointers get into
// plain T: the model never needs to send null, and a single type is what
// every Gemini model reads best.
func notNull(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	notNull(s.Items)
	for _, p := range s.Properties {
		notNull(p)
	}
}

// NewFuncSchema is NewFunc with a parameter schema of the caller's, for
// what A's type cannot say (an enum known only when the run is built). A
// decodes the arguments the schema admits.
func NewFuncSchema[A any](name, description string, schema *jsonschema.Schema, run func(ctx context.Context, call *Call, args A) (Result, error)) *Func[A] {
	return newFuncSchema(name, description, schema, run)
}

func newFuncSchema[A any](name, description string, schema *jsonschema.Schema, run func(ctx context.Context, call *Call, args A) (Result, error)) *Func[A] {
	return &Func[A]{decl: declaration(name, description, schema), resolved: resolve(name, schema), run: run}
}

// WithKind declares the tool's kind (see [Kinded]) and returns f.
func (f *Func[A]) WithKind(k Kind) *Func[A] {
	f.kind = k
	return f
}

// Kind implements [Kinded]: the kind given to WithKind, "" for none.
func (f *Func[A]) Kind() Kind { return f.kind }

// Declaration implements [Tool].
func (f *Func[A]) Declaration() *genai.FunctionDeclaration { return f.decl }

// Run implements [Tool]: arguments that do not match the schema come back to
// the model as an error result naming the problem.
func (f *Func[A]) Run(ctx context.Context, call *Call) (Result, error) {
	args, err := decodeArgs[A](f.resolved, call.Args)
	if err != nil {
		return Errorf("invalid arguments for %s: %v", f.decl.Name, err), nil
	}
	return f.run(ctx, call, args)
}

func decodeArgs[A any](resolved *jsonschema.Resolved, raw json.RawMessage) (A, error) {
	var args A
	if len(raw) == 0 {
		raw = json.RawMessage("{}")
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return args, err
	}
	if err := resolved.Validate(instance); err != nil {
		return args, err
	}
	if err := json.Unmarshal(raw, &args); err != nil {
		return args, err
	}
	return args, nil
}
