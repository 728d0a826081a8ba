package geminitest

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"
)

// ParseScript parses scripted turns from text, for scenario files that
// script the model without Go code. Turns are separated by a line "---".
// Blank lines and lines starting with "#" are ignored; every other line is
// one directive:
//
//	thought <text>             a chunk with a thought part
//	text <text>                a chunk with a text part
//	call <name> [json-args]    a chunk with a function call without an id
//	callid <id> <name> [json-args]
//	signature <text>           thought signature of the previous chunk
//	sigonly <text>             a chunk with an empty text part carrying this
//	                           thought signature (Gemini 3 ends text so)
//	raw <data>                 a chunk sent verbatim as the event's data
//	finish <REASON>            finish reason of the last chunk (default STOP)
//	finishmessage <text>       the API's message with the finish reason
//	block <REASON> [message]   a chunk answering a blocked prompt
//	                           (promptFeedback, no candidates)
//	usage <prompt> <output> <thoughts>
//	                           usage of the last chunk (default: estimated)
//	error <status> [message]   answer with an HTTP error instead of chunks
//	retryafter <value>         Retry-After of the error
//	errdetail <json-object>    a detail of the error (error or midstream),
//	                           such as a google.rpc.QuotaFailure
//	cut <n>                    cut the stream after n chunks
//	malformed                  send a non-JSON event after the chunks
//	midstream <status> [message]
//	                           send an error event after the chunks
//	delay <duration>           wait before answering (Go duration: 2s)
//	chunkdelay <duration>      wait between chunks
//
// A <text> starting with a double quote is a Go-quoted string (so it may
// hold \n); otherwise it is the rest of the line, trimmed. A turn that ends
// normally (no cut, malformed or midstream) gets STOP and an estimated
// usage as with [Reply], unless finish or usage say otherwise.
func ParseScript(src string) ([]Turn, error) {
	var turns []Turn
	var b turnBuilder
	lines := strings.Split(src, "\n")
	for i, line := range lines {
		line = strings.TrimSpace(line)
		switch {
		case line == "---":
			t, err := b.end()
			if err != nil {
				return nil, fmt.Errorf("geminitest: script line %d: %w", i+1, err)
			}
			turns = append(turns, t)
			b = turnBuilder{}
		case line == "" || strings.HasPrefix(line, "#"):
		default:
			if err := b.directive(line); err != nil {
				return nil, fmt.Errorf("geminitest: script line %d: %w", i+1, err)
			}
		}
	}
	if b.directives == 0 && len(turns) == 0 {
		return nil, nil
	}
	t, err := b.end()
	if err != nil {
		return nil, fmt.Errorf("geminitest: script line %d: %w", len(lines), err)
	}
	return append(turns, t), nil
}

// turnBuilder collects the directives of one turn.
type turnBuilder struct {
	t          Turn
	directives int
	finish     genai.FinishReason
	message    string
	usage      *genai.GenerateContentResponseUsageMetadata
}

func (b *turnBuilder) directive(line string) error {
	b.directives++
	word, rest := cutWord(line)
	t := &b.t
	switch word {
	case "thought", "text":
		s, err := textArg(rest)
		if err != nil {
			return err
		}
		if word == "thought" {
			t.Chunks = append(t.Chunks, Thought(s))
		} else {
			t.Chunks = append(t.Chunks, Text(s))
		}
	case "call", "callid":
		id := ""
		if word == "callid" {
			id, rest = cutWord(rest)
		}
		name, args := cutWord(rest)
		if name == "" {
			return fmt.Errorf("%s: missing function name", word)
		}
		var m map[string]any
		if args != "" {
			if err := json.Unmarshal([]byte(args), &m); err != nil {
				return fmt.Errorf("%s %s: args must be a JSON object: %w", word, name, err)
			}
		}
		t.Chunks = append(t.Chunks, CallID(id, name, m))
	case "signature":
		s, err := textArg(rest)
		if err != nil {
			return err
		}
		if len(t.Chunks) == 0 {
			return errors.New("signature: no chunk before it")
		}
		t.Chunks[len(t.Chunks)-1].ThoughtSignature = []byte(s)
	case "sigonly":
		sig, err := textArg(rest)
		if err != nil {
			return err
		}
		t.Chunks = append(t.Chunks, SignatureOnly(sig))
	case "finishmessage":
		msg, err := textArg(rest)
		if err != nil {
			return err
		}
		b.message = msg
	case "block":
		reason, msg := cutWord(rest)
		if reason == "" {
			return errors.New("block: missing reason")
		}
		t.Chunks = append(t.Chunks, Chunk{BlockReason: reason, BlockReasonMessage: msg})
	case "errdetail":
		var d map[string]any
		if err := json.Unmarshal([]byte(rest), &d); err != nil {
			return fmt.Errorf("errdetail: want a JSON object: %w", err)
		}
		t.ErrDetails = append(t.ErrDetails, d)
	case "raw":
		if rest == "" {
			return errors.New("raw: missing data")
		}
		t.Chunks = append(t.Chunks, Chunk{Raw: rest})
	case "finish":
		if rest == "" || strings.ContainsAny(rest, " \t") {
			return fmt.Errorf("finish: want one reason, got %q", rest)
		}
		b.finish = genai.FinishReason(rest)
	case "usage":
		var n [3]int32
		f := strings.Fields(rest)
		if len(f) != 3 {
			return fmt.Errorf("usage: want <prompt> <output> <thoughts>, got %q", rest)
		}
		for i, s := range f {
			v, err := strconv.ParseInt(s, 10, 32)
			if err != nil || v < 0 {
				return fmt.Errorf("usage: bad count %q", s)
			}
			n[i] = int32(v)
		}
		b.usage = &genai.GenerateContentResponseUsageMetadata{
			PromptTokenCount: n[0], CandidatesTokenCount: n[1], ThoughtsTokenCount: n[2],
			TotalTokenCount: n[0] + n[1] + n[2],
		}
	case "error", "midstream":
		code, msg := cutWord(rest)
		status, err := strconv.Atoi(code)
		if err != nil || status < 400 || status > 599 {
			return fmt.Errorf("%s: bad HTTP status %q", word, code)
		}
		if word == "error" {
			t.Status = status
		} else {
			t.MidStreamError = status
		}
		t.ErrMessage = msg
	case "retryafter":
		if rest == "" {
			return errors.New("retryafter: missing value")
		}
		t.RetryAfter = rest
	case "cut":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 1 {
			return fmt.Errorf("cut: want a chunk count >= 1, got %q", rest)
		}
		t.CutAfter = n
	case "malformed":
		if rest != "" {
			return errors.New("malformed: takes no argument")
		}
		t.Malformed = true
	case "delay", "chunkdelay":
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return fmt.Errorf("%s: bad duration %q", word, rest)
		}
		if word == "delay" {
			t.Delay = d
		} else {
			t.ChunkDelay = d
		}
	default:
		return fmt.Errorf("unknown directive %q", word)
	}
	return nil
}

// end finishes the turn.
func (b *turnBuilder) end() (Turn, error) {
	t := b.t
	switch {
	case b.directives == 0:
		return Turn{}, errors.New("empty turn")
	case t.Status != 0:
		if len(t.Chunks) > 0 || b.finish != "" || b.message != "" || b.usage != nil || t.CutAfter > 0 || t.Malformed || t.MidStreamError > 0 {
			return Turn{}, errors.New("an error turn has only error, retryafter, errdetail and delay")
		}
		return t, nil
	case t.RetryAfter != "":
		return Turn{}, errors.New("retryafter without error")
	case len(t.ErrDetails) > 0 && t.MidStreamError == 0:
		return Turn{}, errors.New("errdetail without error or midstream")
	case b.message != "" && b.finish == "":
		return Turn{}, errors.New("finishmessage without finish")
	}
	if len(t.Chunks) == 0 && (b.finish != "" || b.usage != nil) {
		t.Chunks = []Chunk{{}}
	}
	if n := len(t.Chunks); n > 0 {
		if b.finish != "" {
			t.Chunks[n-1].FinishReason = b.finish
			t.Chunks[n-1].FinishMessage = b.message
		}
		if b.usage != nil {
			t.Chunks[n-1].Usage = b.usage
		}
	}
	if t.CutAfter == 0 && !t.Malformed && t.MidStreamError == 0 {
		t.finish()
	}
	return t, nil
}

// cutWord splits s at its first space or tab.
func cutWord(s string) (word, rest string) {
	i := strings.IndexAny(s, " \t")
	if i < 0 {
		return s, ""
	}
	return s[:i], strings.TrimSpace(s[i+1:])
}

// textArg is a text argument: Go-quoted when it starts with a quote,
// literal otherwise.
func textArg(s string) (string, error) {
	if strings.HasPrefix(s, `"`) {
		u, err := strconv.Unquote(s)
		if err != nil {
			return "", fmt.Errorf("bad quoted text %s: %w", s, err)
		}
		s = u
	}
	if s == "" {
		return "", errors.New("missing text")
	}
	return s, nil
}
