package transport

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"
)

// A Lift names the strings a Stream takes out of the frames it reads (see
// Stream.SetLift): in a notification of one of Methods, of Min bytes or
// more, the string value of each member named Member inside its params.
type Lift struct {
	Methods []string
	Member  string
	Min     int
}

// lifter holds a Stream's lift and the strings lifted from the frame read
// last.
type lifter struct {
	methods [][]byte // each method as a JSON string literal
	member  []byte   // the member's name as a JSON string literal
	min     int
	prefix  string // of every placeholder: a NUL and a random tag

	mu      sync.Mutex
	frame   int      // frames lifted so far; a placeholder names its frame
	strings []string // the last frame's strings, by index
}

// errLiftedGone reports a placeholder whose string is gone: it was resolved
// after the next frame was read, which only a handler that runs
// concurrently with the reading loop could do.
var errLiftedGone = errors.New("the long string this placeholder stood for is no longer held")

func newLifter(l Lift) *lifter {
	var tag [8]byte
	rand.Read(tag[:])
	lf := &lifter{member: strconv.AppendQuote(nil, l.Member), min: max(l.Min, 64), prefix: "\x00lifted-" + hex.EncodeToString(tag[:]) + "-"}
	for _, m := range l.Methods {
		lf.methods = append(lf.methods, strconv.AppendQuote(nil, m))
	}
	return lf
}

// lift returns body with each string it lifts replaced by a placeholder,
// and keeps the strings; body itself when it lifts nothing. The strings
// are decoded in place, in body, which may then hold them: pinned reports
// that body must never be written again. A string that is not valid JSON
// makes the frame invalid: lift reports why, and body is then garbage.
func (lf *lifter) lift(body []byte) (small []byte, pinned bool, err error) {
	lf.mu.Lock()
	defer lf.mu.Unlock()
	lf.strings = nil // the last frame's, handled by now
	if len(body) < lf.min || !slices.ContainsFunc(lf.methods, func(m []byte) bool { return bytes.Contains(body, m) }) {
		// Too small, or not one of the methods: nothing to decode here (a
		// large didSave with its text is left to encoding/json, once).
		return body, false, nil
	}
	texts, ok, err := lf.scan(body)
	if err != nil || len(texts) == 0 {
		return body, false, err
	}
	total, kept := 0, 0
	for _, t := range texts {
		total += t.end - t.start
		if len(t.text) > 0 && &t.text[0] == &body[t.start+1] {
			kept += len(t.text)
		}
	}
	small = make([]byte, 0, len(body)-total+len(texts)*(len(lf.prefix)+24))
	if !ok {
		// Not a frame to lift from: the strings go back, encoded again.
		last := 0
		for _, t := range texts {
			small = append(small, body[last:t.start]...)
			small = appendQuoted(small, t.text)
			last = t.end
		}
		return append(small, body[last:]...), false, nil
	}
	// The strings decoded in place keep body alive; when that would waste
	// more than a third of it, each is copied out instead.
	pinned = kept*4 >= cap(body)*3
	lf.frame++
	id := lf.prefix[1:] + strconv.Itoa(lf.frame) + "-" // the placeholder without its NUL
	lf.strings = make([]string, len(texts))
	last := 0
	for i, t := range texts {
		if len(t.text) < lf.min {
			// Too short to be worth lifting: back in the frame, encoded
			// again (it was decoded in place).
			small = append(small, body[last:t.start]...)
			small = appendQuoted(small, t.text)
			last = t.end
			continue
		}
		switch d := t.text; {
		case len(d) == 0:
		case pinned || &d[0] != &body[t.start+1]:
			lf.strings[i] = unsafe.String(&d[0], len(d)) // Inv: d is never written again
		default:
			lf.strings[i] = string(d)
		}
		small = append(small, body[last:t.start]...)
		// The placeholder as JSON: its NUL escaped, the rest ASCII.
		small = append(small, `"\u0000`...)
		small = append(small, id...)
		small = strconv.AppendInt(small, int64(i), 10)
		small = append(small, '"')
		last = t.end
	}
	return append(small, body[last:]...), pinned, nil
}

// A lifted is a string decoded in place: its bounds in the frame, quotes
// included, and its text.
type lifted struct {
	start, end int
	text       []byte
}

// scan decodes in place, in one pass over body, every string value of a
// member named lf.member inside the params of body, if body is one JSON
// object; ok reports whether body is a notification (no "id") whose
// "method" is one of lf's, whose strings are to be lifted. The scan follows
// JSON's lexical rules only (a string starts at a quote outside a string
// and ends at the next unescaped one; a string followed by ':' is a
// member's name), so it finds in any body the string tokens a parser
// would, and swapping one for another string leaves the body as valid, or
// as invalid, as it was. A string that does not decode is an error.
func (lf *lifter) scan(b []byte) (texts []lifted, ok bool, err error) {
	if i := skipSpace(b, 0); i == len(b) || b[i] != '{' {
		return nil, false, nil
	}
	var (
		depth    int
		key      []byte // the name before the value being read, if any
		top      []byte // the name of the top-level member being read
		method   []byte
		isCall   bool
		inParams bool
	)
	for i := 0; i < len(b); {
		switch b[i] {
		case '"':
			if inParams && key != nil && bytes.Equal(key, lf.member) {
				text, n, err := unquoteInPlace(b[i+1:])
				if err != nil {
					return nil, false, fmt.Errorf("invalid JSON string at byte %d of the message body: %w", i, err)
				}
				texts = append(texts, lifted{i, i + 1 + n, text})
				key = nil
				i += 1 + n
				continue
			}
			end := stringEnd(b, i)
			if end < 0 {
				return texts, false, nil // not JSON; nothing after it was decoded
			}
			if j := skipSpace(b, end); j < len(b) && b[j] == ':' {
				key = b[i:end]
				if depth == 1 {
					top = key
					isCall = isCall || string(key) == `"id"`
				}
				i = j + 1
				continue
			}
			if depth == 1 && string(key) == `"method"` {
				method = b[i:end]
			}
			key = nil
			i = end
			continue
		case '{', '[':
			depth++
			inParams = inParams || depth == 2 && string(top) == `"params"`
		case '}', ']':
			depth--
			inParams = inParams && depth >= 2
		case ' ', '\t', '\r', '\n':
			i++
			continue
		}
		key = nil
		i++
	}
	ok = !isCall && slices.ContainsFunc(lf.methods, func(m []byte) bool { return bytes.Equal(m, method) })
	return texts, ok, nil
}

// resolve returns the string v stands for if it is a placeholder, else v.
func (lf *lifter) resolve(v string) (string, error) {
	rest, ok := strings.CutPrefix(v, lf.prefix)
	if !ok {
		return v, nil
	}
	frame, index, ok := strings.Cut(rest, "-")
	f, ferr := strconv.Atoi(frame)
	i, ierr := strconv.Atoi(index)
	lf.mu.Lock()
	defer lf.mu.Unlock()
	if !ok || ferr != nil || ierr != nil || f != lf.frame || i < 0 || i >= len(lf.strings) {
		return "", errLiftedGone
	}
	return lf.strings[i], nil
}

// stringEnd returns the offset just after the JSON string that starts at
// b[i], or -1 if it does not end.
func stringEnd(b []byte, i int) int {
	for j := i + 1; ; {
		k := bytes.IndexByte(b[j:], '"')
		if k < 0 {
			return -1
		}
		j += k
		// The quote ends the string unless an odd run of backslashes
		// escapes it.
		n := 0
		for p := j - 1; p > i && b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			return j + 1
		}
		j++
	}
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}
