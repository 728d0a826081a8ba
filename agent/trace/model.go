package trace

import (
	"context"
	"encoding/json"
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/memory"
)

// Model returns a Model layer that passes calls to m and records each one
// (what went in, the answer, usage, retries) when it ends. Wrap the model
// before handing it to subagent tools, so that their calls are recorded
// too; put it outside the retry layer, whose retries it records. Wrapping
// twice with one Writer records once.
func (w *Writer) Model(m agent.Model) agent.Model {
	if l, ok := m.(*modelLayer); ok && l.w == w {
		return m
	}
	return &modelLayer{w: w, next: m}
}

type modelLayer struct {
	w    *Writer
	next agent.Model
}

// Generate implements agent.Model.
func (l *modelLayer) Generate(ctx context.Context, req *agent.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		start := l.w.opts.Now()
		rec := &ModelCall{PromptID: req.PromptID, RunID: RunOf(req.PromptID), Seq: l.w.nextSeq(req.PromptID),
			Started: start, Model: req.Model, Asked: Asked(req), Context: contextOf(req)}
		defer func() {
			rec.Duration = l.w.opts.Now().Sub(start)
			l.w.write(Record{Type: TypeModelCall, Call: rec})
		}()
		inner := *req
		if req.Events != nil {
			// Layers below report retries on the goroutine that iterates
			// this call: the record is not shared.
			inner.Events = func(ev agent.Event) {
				if ev.Type == agent.EventRetry && ev.Retry != nil {
					rec.Retries = append(rec.Retries, *ev.Retry)
					if ev.Retry.Discard {
						// What streamed before is void: a replay must
						// not play it.
						rec.Chunks, rec.Usage = nil, nil
					}
				}
				req.Events(ev)
			}
		}
		for resp, err := range l.next.Generate(ctx, &inner) {
			if err != nil {
				rec.Error = err.Error()
				yield(nil, err)
				return
			}
			// The HTTP envelope (headers, dates) is transport, not the
			// answer, and headers may hold credentials.
			saved := *resp
			saved.SDKHTTPResponse = nil
			rec.Chunks = append(rec.Chunks, &saved)
			if u := resp.UsageMetadata; u != nil {
				rec.Usage = &agent.Usage{Prompt: int64(u.PromptTokenCount), Output: int64(u.CandidatesTokenCount),
					Thoughts: int64(u.ThoughtsTokenCount), Cached: int64(u.CachedContentTokenCount)}
			}
			if !yield(resp, nil) {
				return
			}
		}
	}
}

// RunOf returns the run id of a prompt id ("main-1a2b#3" → "main-1a2b").
func RunOf(promptID string) string {
	if i := strings.LastIndexByte(promptID, '#'); i >= 0 {
		return promptID[:i]
	}
	return promptID
}

// Asked summarizes what a request answers: the function responses (tool
// name and outcome) of its last content, or "user" for a user message. A
// replay compares it to tell when the harness asks something the recording
// did not.
func Asked(req *agent.Request) []string {
	if len(req.Contents) == 0 {
		return nil
	}
	out := []string{}
	for _, p := range req.Contents[len(req.Contents)-1].Parts {
		switch {
		case p.FunctionResponse != nil:
			status := "ok"
			if _, isErr := p.FunctionResponse.Response["error"]; isErr {
				status = "error"
			}
			out = append(out, p.FunctionResponse.Name+":"+status)
		case p.Text != "":
			out = append(out, "user")
		}
	}
	return out
}

// contextFile finds the project context files in a system prompt; the
// harness quotes each as <context file=%q>…</context>. A test keeps the
// two in step.
var contextFile = regexp.MustCompile(`(?s)<context file="((?:[^"\\]|\\.)*)">\n(.*?)\n</context>`)

// activateSkill is the tool whose results put a skill's instructions in
// the history.
const activateSkill = "activate_skill"

// contextOf describes what went into a call: the context files and their
// remembered facts, the skills in the history, the size.
func contextOf(req *agent.Request) CallContext {
	var c CallContext
	bytes := 0
	for i, content := range req.Contents {
		c.Contents++
		if content.Role == genai.RoleModel {
			c.Turns++
			for _, name := range activatedSkills(content, req.Contents[i+1:]) {
				if !slices.Contains(c.Skills, name) {
					c.Skills = append(c.Skills, name)
				}
			}
		}
		bytes += agent.ContentSize(content)
	}
	if cfg := req.Config; cfg != nil {
		if si := cfg.SystemInstruction; si != nil {
			bytes += agent.ContentSize(si)
			for _, p := range si.Parts {
				for _, m := range contextFile.FindAllStringSubmatch(p.Text, -1) {
					path, err := strconv.Unquote(`"` + m[1] + `"`)
					if err != nil {
						path = m[1]
					}
					c.Files = append(c.Files, path)
					c.Memories += len(memory.Facts(m[2]))
				}
			}
		}
		for _, t := range cfg.Tools {
			c.Tools += len(t.FunctionDeclarations)
			b, _ := json.Marshal(t.FunctionDeclarations)
			bytes += len(b)
		}
	}
	c.Tokens = bytes / 4
	return c
}

// activatedSkills are the skills a model turn activated whose activation
// succeeded: the next content answers it without an error. Responses pair
// with calls by id, or else by order.
func activatedSkills(turn *genai.Content, after []*genai.Content) []string {
	if len(after) == 0 {
		return nil
	}
	var responses []*genai.FunctionResponse
	for _, p := range after[0].Parts {
		if r := p.FunctionResponse; r != nil && r.Name == activateSkill {
			responses = append(responses, r)
		}
	}
	var names []string
	k := 0
	for _, p := range turn.Parts {
		fc := p.FunctionCall
		if fc == nil || fc.Name != activateSkill {
			continue
		}
		var r *genai.FunctionResponse
		if i := slices.IndexFunc(responses, func(r *genai.FunctionResponse) bool { return fc.ID != "" && r.ID == fc.ID }); i >= 0 {
			r = responses[i]
		} else if k < len(responses) {
			r = responses[k]
		}
		k++
		name, _ := fc.Args["name"].(string)
		if r == nil || name == "" {
			continue
		}
		if _, isErr := r.Response["error"]; isErr {
			continue
		}
		names = append(names, name)
	}
	return names
}
