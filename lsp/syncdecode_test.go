package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// TestDecodeSync checks decodeSync decodes what json.Unmarshal decodes, big
// texts included, and fails where it fails.
func TestDecodeSync(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("\tv := \"日本\" // \\ \u2028 😀 x\n", bigText/16)
	quoted, _ := json.Marshal(big)
	tests := []string{
		`{"textDocument": {"uri": "file:///a", "languageId": "go", "version": 1, "text": "small"}}`,
		`{"textDocument": {"uri": "file:///a", "version": 1, "text": ` + string(quoted) + `}}`,
		`{"textDocument": {"text": ` + string(quoted) + `, "uri": "file:///a", "version": 1}}`,
		// A key named text elsewhere is no document's text.
		`{"textDocument": {"uri": "file:///a", "version": 1, "languageId": ` + string(quoted) + `, "text": "t"}}`,
		`{"textDocument": {"uri": "file:///a", "version": 1, "text": ` + string(quoted[:len(quoted)-1]) + `\ud800\udc00\ud800 \u00e9\"\/"}}`,
		`{"textDocument": {"uri": "file:///a", "version": 1, "text": ` + string(quoted[:len(quoted)-1]) + "\xff\xfe" + `"}}`,
		// What json.Unmarshal refuses.
		`{"textDocument": {"uri": "file:///a", "version": 1, "text": ` + string(quoted[:len(quoted)-1]) + `\q"}}`,
		`{"textDocument": {"uri": "file:///a", "version": 1, "text": ` + string(quoted[:len(quoted)-1]) + "\x01" + `"}}`,
		`{"textDocument": {"uri": 7, "version": 1, "text": ` + string(quoted) + `}}`,
	}
	for i, params := range tests {
		var want, got protocol.DidOpenTextDocumentParams
		werr := json.Unmarshal([]byte(params), &want)
		gerr := decodeSync([]byte(params), &got, func() []*string { return []*string{&got.TextDocument.Text} })
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%d: error %v, json.Unmarshal's %v", i, gerr, werr)
			continue
		}
		if diff := cmp.Diff(want, got); werr == nil && diff != "" {
			t.Errorf("%d: (-json.Unmarshal +decodeSync):\n%.2000s", i, diff)
		}
	}

	// didChange: several texts, big and small, in order.
	params := `{"textDocument": {"uri": "file:///a", "version": 2}, "contentChanges": [{"text": ` + string(quoted) +
		`}, {"range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "text": "x"}, {"text": ` + string(quoted) + `}]}`
	type change struct {
		Range *protocol.Range `json:"range"`
		Text  string          `json:"text"`
	}
	var want, got struct {
		ContentChanges []change `json:"contentChanges"`
	}
	if err := json.Unmarshal([]byte(params), &want); err != nil {
		t.Fatal(err)
	}
	texts := func() []*string {
		var ts []*string
		for i := range got.ContentChanges {
			ts = append(ts, &got.ContentChanges[i].Text)
		}
		return ts
	}
	if err := decodeSync([]byte(params), &got, texts); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("didChange (-json.Unmarshal +decodeSync):\n%.2000s", diff)
	}
}

// FuzzUnquote compares unquote with json.Unmarshal on any string literal.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`""`, `"a"`, `"\n\t\"\\\/\b\f\r"`, `"\u00e9\ud83d\ude00"`, `"\ud800"`, `"\ud800\u0041"`, "\"\xff\"", `"\x"`, "\"\x1f\"", `"日本"`, `"\u12"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		if len(raw) < 2 || raw[0] != '"' || stringEnd([]byte(raw), 0) != len(raw) {
			return // not one string literal: decodeSync never gives unquote one
		}
		var want string
		werr := json.Unmarshal([]byte(raw), &want)
		got, ok := unquote([]byte(raw))
		if ok != (werr == nil) || ok && got != want {
			t.Errorf("unquote(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, werr)
		}
	})
}
