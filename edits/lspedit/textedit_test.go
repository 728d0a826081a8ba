package lspedit

import (
	"slices"

	"github.com/agentls/agentls/edits"

	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

func rng(l1, c1, l2, c2 uint32) protocol.Range {
	return protocol.Range{Start: pos(l1, c1), End: pos(l2, c2)}
}

func TestTextEdits(t *testing.T) {
	t.Parallel()
	// Line 0 of mixed: é 0, 日 2, 本 5, 😀 8, x 12, line end 13.
	tests := []struct {
		name  string
		old   string
		edits []edits.Edit
		want  map[Encoding][]protocol.TextEdit
	}{
		{
			name:  "after emoji",
			old:   mixed,
			edits: []edits.Edit{{Start: 12, End: 13, New: "y"}},
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 5, 0, 6), NewText: "y"}},
				UTF8:  {{Range: rng(0, 12, 0, 13), NewText: "y"}},
				UTF32: {{Range: rng(0, 4, 0, 5), NewText: "y"}},
			},
		},
		{
			name:  "replace cjk and delete emoji",
			old:   mixed,
			edits: []edits.Edit{{Start: 5, End: 8, New: "語"}, {Start: 8, End: 12, New: ""}},
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 2, 0, 3), NewText: "語"}, {Range: rng(0, 3, 0, 5)}},
				UTF8:  {{Range: rng(0, 5, 0, 8), NewText: "語"}, {Range: rng(0, 8, 0, 12)}},
				UTF32: {{Range: rng(0, 2, 0, 3), NewText: "語"}, {Range: rng(0, 3, 0, 4)}},
			},
		},
		{
			name:  "astral plane runes",
			old:   "𐐀𝄞\n𠀋z",
			edits: []edits.Edit{{Start: 4, End: 8, New: "x"}, {Start: 13, End: 14, New: "Z"}},
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 2, 0, 4), NewText: "x"}, {Range: rng(1, 2, 1, 3), NewText: "Z"}},
				UTF8:  {{Range: rng(0, 4, 0, 8), NewText: "x"}, {Range: rng(1, 4, 1, 5), NewText: "Z"}},
				UTF32: {{Range: rng(0, 1, 0, 2), NewText: "x"}, {Range: rng(1, 1, 1, 2), NewText: "Z"}},
			},
		},
		{
			name:  "crlf split is widened",
			old:   "a\r\nb\r\n",
			edits: []edits.Edit{{Start: 1, End: 2, New: ""}}, // drop the "\r" only
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 1, 1, 0), NewText: "\n"}},
				UTF8:  {{Range: rng(0, 1, 1, 0), NewText: "\n"}},
				UTF32: {{Range: rng(0, 1, 1, 0), NewText: "\n"}},
			},
		},
		{
			name:  "new file",
			old:   "",
			edits: []edits.Edit{{Start: 0, End: 0, New: "package a\n"}},
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 0, 0, 0), NewText: "package a\n"}},
				UTF8:  {{Range: rng(0, 0, 0, 0), NewText: "package a\n"}},
				UTF32: {{Range: rng(0, 0, 0, 0), NewText: "package a\n"}},
			},
		},
		{
			name:  "delete everything",
			old:   "a\n😀\n",
			edits: []edits.Edit{{Start: 0, End: 7, New: ""}},
			want: map[Encoding][]protocol.TextEdit{
				UTF16: {{Range: rng(0, 0, 2, 0)}},
				UTF8:  {{Range: rng(0, 0, 2, 0)}},
				UTF32: {{Range: rng(0, 0, 2, 0)}},
			},
		},
		{
			name:  "no edits",
			old:   "a",
			edits: nil,
			want:  map[Encoding][]protocol.TextEdit{UTF16: nil, UTF8: nil, UTF32: nil},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for enc, want := range tt.want {
				got, err := TextEdits(tt.old, tt.edits, enc)
				if err != nil {
					t.Fatalf("%v: %v", enc, err)
				}
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%v: TextEdits mismatch (-want +got):\n%s", enc, diff)
				}
				wantText, _ := edits.Apply(tt.old, tt.edits)
				if text, err := ApplyTextEdits(tt.old, got, enc); err != nil || text != wantText {
					t.Errorf("%v: ApplyTextEdits = %q, %v; want %q", enc, text, err, wantText)
				}
			}
		})
	}
}

func TestTextEditsErrors(t *testing.T) {
	t.Parallel()
	for _, es := range [][]edits.Edit{{{Start: 0, End: 9, New: ""}}, {{Start: 2, End: 3, New: ""}, {Start: 0, End: 1, New: ""}}} {
		if _, err := TextEdits("abc", es, UTF16); !errors.Is(err, edits.ErrEdit) {
			t.Errorf("TextEdits(%v): error %v, want edits.ErrEdit", es, err)
		}
	}
}

// roundTrip checks ApplyTextEdits(old, TextEdits(old, edits.Compute(old, new))) == new.
func roundTrip(t testing.TB, old, new string, enc Encoding) {
	t.Helper()
	es := edits.Compute(old, new)
	if got, err := edits.Normalize(old, es); err != nil || !slices.Equal(got, es) {
		t.Fatalf("Compute(%q, %q) = %v: not normalized edits (%v)", old, new, es, err)
	}
	tes, err := TextEdits(old, es, enc)
	if err != nil {
		t.Fatalf("%v: TextEdits(%q, %v): %v", enc, old, es, err)
	}
	got, err := ApplyTextEdits(old, tes, enc)
	if err != nil {
		t.Fatalf("%v: ApplyTextEdits(%q, %v): %v", enc, old, tes, err)
	}
	if got != new {
		t.Fatalf("%v: round trip of %q -> %q gave %q (edits %v)", enc, old, new, got, tes)
	}
}

func TestTextEditsRoundTrip(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, old, new string }{
		{"equal", "a\n", "a\n"},
		{"new file", "", "package a\n\nfunc F() {}\n"},
		{"delete everything", "package a\n😀\n", ""},
		{"empty old", "", "x"},
		{"multibyte line", "é日本😀x\n", "e日本語😀😁y\n"},
		{"astral plane", "𐐀𝄞\n𠀋", "𝄞𐐀\n\n𠀋𠀋"},
		{"crlf file", "a\r\nb\r\nc\r\n", "a\r\nbb\r\n\r\nc"},
		{"crlf to lf", "a\r\nb\r\n", "a\nb\n"},
		{"lf to crlf", "a\nb\n", "a\r\nb\r\n"},
		{"lone cr", "a\rb\rc", "a\r\nb\n\rc"},
		{"no trailing newline", "a\nb", "a\nb\n"},
		{"invalid utf-8", "a\xffb\xe6\x97\n", "a\xfeb\xe6\x97\xa5\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
				roundTrip(t, tt.old, tt.new, enc)
			}
		})
	}
}

func TestApplyTextEdits(t *testing.T) {
	t.Parallel()
	te := func(r protocol.Range, s string) protocol.TextEdit { return protocol.TextEdit{Range: r, NewText: s} }
	tests := []struct {
		name string
		text string
		tes  []protocol.TextEdit
		want string
		err  error
	}{
		{"none", "abc", nil, "abc", nil},
		{"any order", "abc\ndef", []protocol.TextEdit{te(rng(1, 0, 1, 1), "D"), te(rng(0, 0, 0, 1), "A")}, "Abc\nDef", nil},
		{"same point keeps order", "ab", []protocol.TextEdit{te(rng(0, 1, 0, 1), "x"), te(rng(0, 1, 0, 1), "y")}, "axyb", nil},
		{"insertion before replacement", "ab", []protocol.TextEdit{te(rng(0, 1, 0, 2), "B"), te(rng(0, 1, 0, 1), "x")}, "axB", nil},
		{"character past line end", "ab\ncd", []protocol.TextEdit{te(rng(0, 9, 0, 9), "!")}, "ab!\ncd", nil},
		{"select all", "ab\ncd\n", []protocol.TextEdit{te(rng(0, 0, 2, 0), "x")}, "x", nil},
		{"emoji utf16", "a😀b", []protocol.TextEdit{te(rng(0, 1, 0, 3), "")}, "ab", nil},
		{"overlap", "abc", []protocol.TextEdit{te(rng(0, 0, 0, 2), ""), te(rng(0, 1, 0, 3), "")}, "", edits.ErrEdit},
		{"inside surrogate pair", "a😀b", []protocol.TextEdit{te(rng(0, 2, 0, 3), "")}, "", ErrPosition},
		{"line past end", "a", []protocol.TextEdit{te(rng(3, 0, 3, 0), "")}, "", ErrPosition},
		{"start after end", "abc", []protocol.TextEdit{te(rng(0, 2, 0, 1), "")}, "", ErrPosition},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := ApplyTextEdits(tt.text, tt.tes, UTF16)
			if !errors.Is(err, tt.err) {
				t.Fatalf("ApplyTextEdits error = %v, want %v", err, tt.err)
			}
			if got != tt.want {
				t.Errorf("ApplyTextEdits = %q, want %q", got, tt.want)
			}
		})
	}
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range [][2]string{
		{"", ""},
		{"", "package a\n"},
		{"a\nb\n", ""},
		{"é日本😀x\n", "e日本語😀y\n"},
		{"a\r\nb\r\n", "a\nb\r\nc"},
		{"a\rb", "a\r\nb"},
		{"𐐀𝄞", "𝄞𐐀"},
		{"x\xffy", "x\xe6\x97y"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, old, new string) {
		// The contract is for valid UTF-8, but invalid bytes (one U+FFFD
		// each) must round-trip too, so every input is checked.
		for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
			roundTrip(t, old, new, enc)
		}
	})
}
