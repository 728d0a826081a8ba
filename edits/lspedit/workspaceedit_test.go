package lspedit

import (
	"github.com/agentls/agentls/edits"

	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

func TestWorkspaceEditJSON(t *testing.T) {
	t.Parallel()
	version := int32(3)
	changes := []FileChange{
		{URI: "file:///w/a.go", Old: "package a\n\nvar x = 1\n", New: "package a\n\nvar x = 2\n", Version: &version},
		{URI: uri.File("/w/b c.go"), Old: "b\n", New: "b\nc\n"}, // not open: version null
		{URI: "file:///w/same.go", Old: "s", New: "s"},          // unchanged: left out
		{URI: "file:///w/new.go", New: "package n\n", Create: true},
		{URI: "file:///w/empty.go", Create: true}, // new and empty: no text edit
	}
	tests := []struct {
		name string
		opts Options
		want string
	}{
		{
			name: "needs confirmation",
			opts: Options{NeedsConfirmation: true, Description: "Fix x"},
			want: `{"documentChanges":[` +
				`{"textDocument":{"uri":"file:///w/a.go","version":3},"edits":[{"range":{"start":{"line":2,"character":8},"end":{"line":2,"character":9}},"newText":"2","annotationId":"agentls-1"}]},` +
				`{"textDocument":{"uri":"file:///w/b%20c.go","version":null},"edits":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"newText":"c\n","annotationId":"agentls-1"}]},` +
				`{"annotationId":"agentls-1","kind":"create","uri":"file:///w/new.go","options":{"overwrite":false,"ignoreIfExists":false}},` +
				`{"textDocument":{"uri":"file:///w/new.go","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"package n\n","annotationId":"agentls-1"}]},` +
				`{"annotationId":"agentls-1","kind":"create","uri":"file:///w/empty.go","options":{"overwrite":false,"ignoreIfExists":false}}],` +
				`"changeAnnotations":{"agentls-1":{"label":"agentls: a.go and 3 more files","needsConfirmation":true,"description":"Fix x — 4 files, +3 −1"}}}`,
		},
		{
			name: "custom label and id",
			opts: Options{NeedsConfirmation: true, Label: "Rename x", AnnotationID: "run-7"},
			want: `{"documentChanges":[` +
				`{"textDocument":{"uri":"file:///w/a.go","version":3},"edits":[{"range":{"start":{"line":2,"character":8},"end":{"line":2,"character":9}},"newText":"2","annotationId":"run-7"}]},` +
				`{"textDocument":{"uri":"file:///w/b%20c.go","version":null},"edits":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"newText":"c\n","annotationId":"run-7"}]},` +
				`{"annotationId":"run-7","kind":"create","uri":"file:///w/new.go","options":{"overwrite":false,"ignoreIfExists":false}},` +
				`{"textDocument":{"uri":"file:///w/new.go","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"package n\n","annotationId":"run-7"}]},` +
				`{"annotationId":"run-7","kind":"create","uri":"file:///w/empty.go","options":{"overwrite":false,"ignoreIfExists":false}}],` +
				`"changeAnnotations":{"run-7":{"label":"Rename x","needsConfirmation":true,"description":"4 files, +3 −1"}}}`,
		},
		{
			name: "no confirmation",
			opts: Options{},
			want: `{"documentChanges":[` +
				`{"textDocument":{"uri":"file:///w/a.go","version":3},"edits":[{"range":{"start":{"line":2,"character":8},"end":{"line":2,"character":9}},"newText":"2"}]},` +
				`{"textDocument":{"uri":"file:///w/b%20c.go","version":null},"edits":[{"range":{"start":{"line":1,"character":0},"end":{"line":1,"character":0}},"newText":"c\n"}]},` +
				`{"kind":"create","uri":"file:///w/new.go","options":{"overwrite":false,"ignoreIfExists":false}},` +
				`{"textDocument":{"uri":"file:///w/new.go","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":0}},"newText":"package n\n"}]},` +
				`{"kind":"create","uri":"file:///w/empty.go","options":{"overwrite":false,"ignoreIfExists":false}}]}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			we, err := WorkspaceEdit(changes, tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := protocol.Marshal(we)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, string(b)); diff != "" {
				t.Errorf("WorkspaceEdit JSON mismatch (-want +got):\n%s", diff)
			}
			// What an editor decodes must be what was built.
			var back protocol.WorkspaceEdit
			if err := protocol.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(we, &back); diff != "" {
				t.Errorf("WorkspaceEdit JSON round trip mismatch (-built +decoded):\n%s", diff)
			}
		})
	}
}

func TestWorkspaceEditSingleFileLabel(t *testing.T) {
	t.Parallel()
	we, err := WorkspaceEdit([]FileChange{{URI: uri.File("/w/dir/main.go"), Old: "a\n", New: "b\n"}},
		Options{NeedsConfirmation: true})
	if err != nil {
		t.Fatal(err)
	}
	want := map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
		"agentls-1": {Label: "agentls: main.go", NeedsConfirmation: ptr(true), Description: ptr("1 file, +1 −1")},
	}
	if diff := cmp.Diff(want, we.ChangeAnnotations); diff != "" {
		t.Errorf("ChangeAnnotations mismatch (-want +got):\n%s", diff)
	}
}

func TestWorkspaceEditDoesNotAliasVersion(t *testing.T) {
	t.Parallel()
	v := int32(1)
	we, err := WorkspaceEdit([]FileChange{{URI: "file:///a", Old: "a", New: "b", Version: &v}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	v = 2
	if got := *we.DocumentChanges[0].(*protocol.TextDocumentEdit).TextDocument.Version; got != 1 {
		t.Errorf("version = %d after the caller changed its variable, want 1", got)
	}
}

func TestChangesMap(t *testing.T) {
	t.Parallel()
	got, err := ChangesMap([]FileChange{
		{URI: "file:///w/a.go", Old: "a😀b\n", New: "a😀c\n"},
		{URI: "file:///w/same.go", Old: "s", New: "s"},
	}, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	want := map[uri.URI][]protocol.TextEdit{
		"file:///w/a.go": {{Range: rng(0, 3, 0, 4), NewText: "c"}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ChangesMap mismatch (-want +got):\n%s", diff)
	}
}

func TestWorkspaceEditErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		changes []FileChange
		err     error
	}{
		{"nothing", nil, ErrNoChange},
		{"all unchanged", []FileChange{{URI: "file:///a", Old: "x", New: "x"}}, ErrNoChange},
		{"no uri", []FileChange{{Old: "x", New: "y"}}, edits.ErrEdit},
		{"duplicate", []FileChange{{URI: "file:///a", New: "y"}, {URI: "file:///a", New: "z"}}, edits.ErrEdit},
		{"create with old content", []FileChange{{URI: "file:///a", Old: "x", New: "y", Create: true}}, edits.ErrEdit},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if _, err := WorkspaceEdit(tt.changes, Options{NeedsConfirmation: true}); !errors.Is(err, tt.err) {
				t.Errorf("WorkspaceEdit error = %v, want %v", err, tt.err)
			}
			if _, err := ChangesMap(tt.changes, UTF16); !errors.Is(err, tt.err) {
				t.Errorf("ChangesMap error = %v, want %v", err, tt.err)
			}
		})
	}
	create := []FileChange{{URI: "file:///new", New: "x", Create: true}}
	if _, err := ChangesMap(create, UTF16); !errors.Is(err, edits.ErrEdit) {
		t.Errorf("ChangesMap with a new file: error %v, want edits.ErrEdit", err)
	}
}

// TestWorkspaceEditDelete: a deleted file is a DeleteFile that fails if the
// file is gone, annotated like the rest, and survives a round trip.
func TestWorkspaceEditDelete(t *testing.T) {
	t.Parallel()
	we, err := WorkspaceEdit([]FileChange{
		{URI: "file:///w/a.go", Old: "a\n", New: "b\n"},
		{URI: "file:///w/new.go", Old: "package n\n", Delete: true},
	}, Options{NeedsConfirmation: true, AnnotationID: "r/1", Label: "Revert"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := protocol.Marshal(we)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"documentChanges":[` +
		`{"textDocument":{"uri":"file:///w/a.go","version":null},"edits":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"newText":"b","annotationId":"r/1"}]},` +
		`{"annotationId":"r/1","kind":"delete","uri":"file:///w/new.go","options":{"ignoreIfNotExists":false}}],` +
		`"changeAnnotations":{"r/1":{"label":"Revert","needsConfirmation":true,"description":"2 files, +1 −2"}}}`
	if diff := cmp.Diff(want, string(b)); diff != "" {
		t.Errorf("JSON (-want +got):\n%s", diff)
	}
	var back protocol.WorkspaceEdit
	if err := protocol.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(we, &back); diff != "" {
		t.Errorf("round trip (-built +decoded):\n%s", diff)
	}
	if _, err := WorkspaceEdit([]FileChange{{URI: "file:///w/x", Delete: true, New: "x"}}, Options{}); err == nil {
		t.Error("a deleted file with new content: no error")
	}
	if _, err := ChangesMap([]FileChange{{URI: "file:///w/x", Old: "x", Delete: true}}, UTF16); err == nil {
		t.Error("ChangesMap deleting a file: no error")
	}
}
