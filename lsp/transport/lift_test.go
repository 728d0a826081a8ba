package transport

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// bigDoc is a document of at least n bytes of JSON whose lines hold what a
// string decoder can get wrong: escapes, multi-byte UTF-8, characters
// outside the BMP (surrogate pairs when escaped), a line separator.
func bigDoc(n int) string {
	const line = "\tv := \"日本\" // \\ \u2028 😀 x\r\n"
	return strings.Repeat(line, n/len(line)+1)
}

var testLift = Lift{Methods: []string{"textDocument/didOpen", "textDocument/didChange"}, Member: "text", Min: 1024}

// liftDecode lifts body, decodes the small frame with encoding/json and
// resolves every placeholder in it, as the server's handler would.
func liftDecode(t testing.TB, lf *lifter, body []byte) (any, error) {
	t.Helper()
	small, _, err := lf.lift(body)
	if err != nil {
		return nil, err
	}
	var v any
	if err := json.Unmarshal(small, &v); err != nil {
		return nil, err
	}
	var resolveAll func(any) (any, error)
	resolveAll = func(v any) (any, error) {
		switch v := v.(type) {
		case string:
			return lf.resolve(v)
		case map[string]any:
			for k, e := range v {
				r, err := resolveAll(e)
				if err != nil {
					return nil, err
				}
				v[k] = r
			}
		case []any:
			for i, e := range v {
				r, err := resolveAll(e)
				if err != nil {
					return nil, err
				}
				v[i] = r
			}
		}
		return v, nil
	}
	return resolveAll(v)
}

// TestLift checks that a frame decodes, once lifted and its placeholders
// resolved, to what encoding/json makes of it whole, and that only the
// strings the Lift names are lifted.
func TestLift(t *testing.T) {
	t.Parallel()
	doc := bigDoc(4096)
	q, _ := json.Marshal(doc)
	quoted := string(q)
	// ASCII escapes of what json.Marshal writes as UTF-8, and a lone
	// surrogate.
	escaped := quoted[:len(quoted)-1] + `\u65e5\u672c \ud83d\ude00 \ud800 \udc00x \/ \b\f"`
	// Raw invalid UTF-8 right at the start: no escape before it leaves
	// room to write U+FFFD in place.
	invalid := "\"\xff\xfe" + quoted[1:len(quoted)-1] + "\xc3\""
	tests := []struct {
		name  string
		frame string
		lifts int // strings lifted
	}{
		{"didOpen", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a","version":1,"text":` + quoted + `}}}`, 1},
		{"method after params", `{"params":{"textDocument":{"text":` + quoted + `,"uri":"file:///a"}}, "jsonrpc":"2.0", "method" : "textDocument/didOpen"}`, 1},
		{"escapes and surrogates", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":` + escaped + `}}}`, 1},
		{"invalid UTF-8", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":` + invalid + `}}}`, 1},
		{"didChange, several texts", `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[{"text":` + quoted +
			`},{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"text":"x"},{"text":` + escaped + `}]}}`, 3},
		{"a short frame", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"short"}}}`, 0},
		{"another member", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"languageId":` + quoted + `,"text":"t"}}}`, 1},
		{"outside params", `{"jsonrpc":"2.0","method":"textDocument/didOpen","text":` + quoted + `,"params":{}}`, 0},
		{"another method", `{"jsonrpc":"2.0","method":"workspace/executeCommand","params":{"text":` + quoted + `}}`, 0},
		{"a request", `{"jsonrpc":"2.0","id":1,"method":"textDocument/didOpen","params":{"textDocument":{"text":` + quoted + `}}}`, 0},
		{"a batch", `[{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":` + quoted + `}}}]`, 0},
		{"the name escaped", `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"te\u0078t":` + quoted + `}}}`, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var want any
			if err := json.Unmarshal([]byte(tt.frame), &want); err != nil {
				t.Fatal(err)
			}
			lf := newLifter(testLift)
			got, err := liftDecode(t, lf, []byte(tt.frame))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("(-encoding/json +lifted):\n%.2000s", diff)
			}
			if len(lf.strings) != tt.lifts {
				t.Errorf("lifted %d strings, want %d", len(lf.strings), tt.lifts)
			}
		})
	}
}

// TestLiftInvalid checks that a lifted string that is not valid JSON makes
// an error, as encoding/json finds the frame invalid.
func TestLiftInvalid(t *testing.T) {
	t.Parallel()
	q, _ := json.Marshal(bigDoc(4096))
	quoted := string(q)
	for _, text := range []string{
		quoted[:len(quoted)-1] + `\q"`,
		quoted[:len(quoted)-1] + `\u12"`,
		quoted[:len(quoted)-1] + "\x01\"",
		quoted[:len(quoted)/2] + "\n" + quoted[len(quoted)/2:],
	} {
		frame := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":` + text + `}}}`
		if json.Valid([]byte(frame)) {
			t.Fatalf("test frame is valid JSON")
		}
		lf := newLifter(testLift)
		if _, _, err := lf.lift([]byte(frame)); err == nil {
			t.Errorf("lift of %.40q…%q: no error", text, text[len(text)-10:])
		}
	}
}

// TestLiftLifetime checks that a placeholder stands for its string until
// the next frame, that a text decoded in place keeps the frame's buffer
// only when it is most of it, and that nothing but a placeholder is
// resolved.
func TestLiftLifetime(t *testing.T) {
	t.Parallel()
	lf := newLifter(testLift)
	doc := bigDoc(4096)
	q, _ := json.Marshal(doc)
	frame := []byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":` + string(q) + `}}}`)
	small, pinned, err := lf.lift(frame)
	if err != nil {
		t.Fatal(err)
	}
	if !pinned {
		t.Errorf("a frame that is mostly its text was not kept for it")
	}
	var p struct {
		Params struct{ TextDocument struct{ Text string } }
	}
	if err := json.Unmarshal(small, &p); err != nil {
		t.Fatal(err)
	}
	placeholder := p.Params.TextDocument.Text
	if got, err := lf.resolve(placeholder); err != nil || got != doc {
		t.Fatalf("resolve = %.40q…, %v", got, err)
	}
	for _, v := range []string{"", "text", "\x00lifted-0000000000000000-1-0"} {
		if got, err := lf.resolve(v); err != nil || got != v {
			t.Errorf("resolve(%q) = %q, %v; want it unchanged", v, got, err)
		}
	}
	if got, err := lf.resolve(strings.TrimSuffix(placeholder, "0") + "1"); err == nil {
		t.Errorf("a placeholder for no string resolves to %.40q", got)
	}
	// The next frame, in a buffer much larger than its text: copied out.
	big := make([]byte, 0, 4*len(frame))
	q2, _ := json.Marshal(doc + "2")
	big = append(big, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":`+string(q2)+`}}}`...)
	if _, pinned, err := lf.lift(big); err != nil || pinned {
		t.Errorf("lift in a buffer four times the text: pinned %v, %v", pinned, err)
	}
	if _, err := lf.resolve(placeholder); err == nil {
		t.Errorf("the last frame's placeholder still resolves")
	}
	text, err := lf.resolve(strings.Replace(placeholder, "-1-", "-2-", 1))
	if err != nil || text != doc+"2" {
		t.Fatalf("resolve = %.40q…, %v", text, err)
	}
	clear(big[:cap(big)]) // the buffer is reused for the next frame
	if text != doc+"2" {
		t.Errorf("a text copied out of the frame changed with its buffer")
	}
}

// FuzzLift checks, on any frame, that lifting gives what encoding/json
// gives, or an error where encoding/json finds the frame invalid.
func FuzzLift(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"` + strings.Repeat(`ab\n\"日本\ud83d\ude00`, 80) + `"}}}`,
		`{"method":"textDocument/didChange","params":{"contentChanges":[{"text":"` + strings.Repeat("\xff\\t", 400) + `"},{"text":"` + strings.Repeat("x", 1100) + `"}]}}`,
		`{"method":"textDocument/didOpen","id":null,"params":{"text":"` + strings.Repeat(`\u0041`, 200) + `"}}`,
		`{"method":"textDocument/didOpen","params":{"text":"` + strings.Repeat(`a\`, 600) + `"}}`,
	} {
		f.Add([]byte(s))
	}
	lift := Lift{Methods: []string{"textDocument/didOpen", "textDocument/didChange"}, Member: "text", Min: 64}
	f.Fuzz(func(t *testing.T, frame []byte) {
		var want any
		werr := json.Unmarshal(frame, &want)
		got, err := liftDecode(t, newLifter(lift), []byte(string(frame)))
		if werr != nil {
			if err == nil {
				t.Errorf("encoding/json: %v; lifted: no error, %v", werr, got)
			}
			return
		}
		if err != nil {
			t.Fatalf("lifted: %v", err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("(-encoding/json +lifted):\n%.2000s", diff)
		}
	})
}

// FuzzUnquoteInPlace compares unquoteInPlace with encoding/json on any
// string literal, followed by anything.
func FuzzUnquoteInPlace(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\n\t\"\\\/\b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, "\"\xff\"", `"\x"`, "\"\x1f\"", `"日本"`, `"\u12"`,
		"\"\\n\xff\xff\\t\xc3\"", `"abcdefghijklmnop\"q"`, `"\\\\\"" x"`, "\"\xed\xa0\x80\xf0\x9f\x98\x80\"", `"unterminated`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) < 1 || raw[0] != '"' {
			return
		}
		end := stringEnd([]byte(raw), 0)
		var want string
		werr := errors.New("no closing quote")
		if end > 0 {
			werr = json.Unmarshal([]byte(raw[:end]), &want)
		}
		got, n, err := unquoteInPlace([]byte(raw[1:]))
		if (err == nil) != (werr == nil) || err == nil && (string(got) != want || n != end-1) {
			t.Errorf("unquoteInPlace(%q) = %q, %d, %v; encoding/json: %q (%d bytes), %v", raw, got, n, err, want, end-1, werr)
		}
		if err == nil {
			q := appendQuoted(nil, got)
			var back string
			if err := json.Unmarshal(q, &back); err != nil || back != want {
				t.Errorf("appendQuoted(%q) = %s, which decodes to %q, %v", got, q, back, err)
			}
		}
	})
}

// BenchmarkLift lifts the text out of a 20 MB didOpen frame, as the
// lsp package's BenchmarkDidOpenBig writes it: ns/op is the one pass over
// the frame that decodes the text in place.
func BenchmarkLift(b *testing.B) {
	var sb strings.Builder
	for line := 0; sb.Len() < 20<<20; line++ {
		fmt.Fprintf(&sb, "\tv%d := compute(%d, %q) // line %d\n", line, line*7, "日本", line)
	}
	q, _ := json.Marshal(sb.String())
	frame := []byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///a.go","languageId":"go","version":1,"text":` + string(q) + `}}}`)
	buf := make([]byte, len(frame))
	lf := newLifter(testLift)
	b.SetBytes(int64(len(frame)))
	for b.Loop() {
		copy(buf, frame)
		if _, _, err := lf.lift(buf); err != nil {
			b.Fatal(err)
		}
	}
}

// A frame of many short strings that need a copy (an invalid UTF-8 byte
// right at their start) costs memory in proportion to the frame, not its
// square: each copy is sized to its string, and short strings stay in the
// frame. (A copy sized to the rest of the frame made this 260 KB frame
// allocate about 2.7 GB.) They still decode as encoding/json decodes them.
func TestLiftManyShortStrings(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///a","version":2},"contentChanges":[`)
	for i := range 20000 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString("{\"text\":\"\x80\"}")
	}
	b.WriteString(`]}}`)
	frame := b.String()
	var want any
	if err := json.Unmarshal([]byte(frame), &want); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got, err := liftDecode(t, newLifter(Lift{Methods: testLift.Methods, Member: "text", Min: 64}), []byte(frame))
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Error("the lifted frame decodes differently from encoding/json's decoding of it")
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 200*uint64(len(frame)) {
		t.Errorf("lifting a %d-byte frame allocated %d bytes", len(frame), alloc)
	}
}
