package lspedit

import (
	"github.com/agentls/agentls/edits"

	"cmp"
	"fmt"
	"path"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
)

// A FileChange is one file's proposed change.
type FileChange struct {
	URI uri.URI
	Old string // current content ("" for a new file)
	New string
	// Version is the editor buffer version when the file is open in the
	// editor; nil otherwise, which tells the client to trust the disk.
	Version *int32
	Create  bool // the file does not exist yet
	// Delete deletes the file (a DeleteFile resource operation); New must
	// be "".
	Delete bool
}

// Options shape a WorkspaceEdit.
type Options struct {
	Encoding          Encoding
	Label             string // annotation label; "" -> "agentls: <base name>"
	Description       string // annotation description prefix; the edits.Stat is appended
	NeedsConfirmation bool   // when false, no change annotations are added at all
	AnnotationID      string // "" -> "agentls-1"
}

const defaultAnnotationID = "agentls-1"

// WorkspaceEdit builds a documentChanges edit. An existing file becomes one
// TextDocumentEdit carrying its Version (nil encodes as "version": null, the
// file on disk); its edits are AnnotatedTextEdits when NeedsConfirmation, and
// plain TextEdits otherwise. A new file becomes a CreateFile that fails if
// the file exists, followed by a TextDocumentEdit that inserts the content at
// 0:0. Unchanged files are left out; if no file changes the error wraps
// ErrNoChange. With NeedsConfirmation, all edits share one ChangeAnnotation
// whose description ends with the files count and line stats.
func WorkspaceEdit(changes []FileChange, opts Options) (*protocol.WorkspaceEdit, error) {
	if err := validate(changes); err != nil {
		return nil, err
	}
	id := protocol.ChangeAnnotationIdentifier(opts.AnnotationID)
	if id == "" {
		id = defaultAnnotationID
	}
	element := func(te protocol.TextEdit) protocol.TextDocumentEditElement {
		if opts.NeedsConfirmation {
			return &protocol.AnnotatedTextEdit{TextEdit: te, AnnotationID: id}
		}
		return &te
	}
	var (
		docChanges []protocol.DocumentChange
		changed    []uri.URI
		stat       edits.Stat
	)
	for _, fc := range changes {
		if fc.Delete {
			df := &protocol.DeleteFile{Kind: "delete", URI: fc.URI, Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptr(false)}}
			if opts.NeedsConfirmation {
				df.AnnotationID = id
			}
			docChanges = append(docChanges, df)
			changed = append(changed, fc.URI)
			stat = stat.Add(edits.DiffStat(fc.Old, ""))
			continue
		}
		if fc.Create {
			// The create is refused if the file appeared meanwhile, rather
			// than overwriting what someone else wrote.
			cf := &protocol.CreateFile{
				// Trap: CreateFile has its own Kind besides the embedded
				// ResourceOperation.Kind. Only the outer one is encoded and
				// decoded, so only it is set and the value survives a
				// round trip through JSON unchanged.
				Kind:    "create",
				URI:     fc.URI,
				Options: &protocol.CreateFileOptions{Overwrite: ptr(false), IgnoreIfExists: ptr(false)},
			}
			if opts.NeedsConfirmation {
				cf.AnnotationID = id
			}
			docChanges = append(docChanges, cf)
			if fc.New != "" {
				docChanges = append(docChanges, &protocol.TextDocumentEdit{
					TextDocument: versioned(fc.URI, nil),
					Edits:        []protocol.TextDocumentEditElement{element(protocol.TextEdit{NewText: fc.New})},
				})
			}
		} else {
			tes, err := TextEdits(fc.Old, edits.Compute(fc.Old, fc.New), opts.Encoding)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", fc.URI, err)
			}
			if len(tes) == 0 {
				continue
			}
			elems := make([]protocol.TextDocumentEditElement, len(tes))
			for i, te := range tes {
				elems[i] = element(te)
			}
			docChanges = append(docChanges, &protocol.TextDocumentEdit{
				TextDocument: versioned(fc.URI, fc.Version),
				Edits:        elems,
			})
		}
		changed = append(changed, fc.URI)
		stat = stat.Add(edits.DiffStat(fc.Old, fc.New))
	}
	if len(changed) == 0 {
		return nil, fmt.Errorf("workspace edit: %w", ErrNoChange)
	}
	we := &protocol.WorkspaceEdit{DocumentChanges: docChanges}
	if opts.NeedsConfirmation {
		we.ChangeAnnotations = map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{
			id: {
				Label:             cmp.Or(opts.Label, defaultLabel(changed)),
				NeedsConfirmation: ptr(true),
				Description:       ptr(describe(opts.Description, len(changed), stat)),
			},
		}
	}
	return we, nil
}

// ChangesMap is the fallback for clients without documentChanges support: the
// WorkspaceEdit.Changes map. It carries no versions and cannot create files,
// so a Create change is an error wrapping edits.ErrEdit. Unchanged files are left
// out; if no file changes the error wraps ErrNoChange.
func ChangesMap(changes []FileChange, enc Encoding) (map[uri.URI][]protocol.TextEdit, error) {
	if err := validate(changes); err != nil {
		return nil, err
	}
	out := make(map[uri.URI][]protocol.TextEdit, len(changes))
	for _, fc := range changes {
		if fc.Create || fc.Delete {
			return nil, fmt.Errorf("%w: %s: creating or deleting a file needs documentChanges support", edits.ErrEdit, fc.URI)
		}
		tes, err := TextEdits(fc.Old, edits.Compute(fc.Old, fc.New), enc)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fc.URI, err)
		}
		if len(tes) > 0 {
			out[fc.URI] = tes
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("changes map: %w", ErrNoChange)
	}
	return out, nil
}

// validate rejects changes an editor could not apply as one edit.
func validate(changes []FileChange) error {
	seen := make(map[uri.URI]bool, len(changes))
	for i, fc := range changes {
		switch {
		case fc.URI == "":
			return fmt.Errorf("%w: change %d has no URI", edits.ErrEdit, i)
		case seen[fc.URI]:
			// Two TextDocumentEdits for one document would each claim
			// to start from the same version.
			return fmt.Errorf("%w: %s appears twice", edits.ErrEdit, fc.URI)
		case fc.Create && fc.Old != "":
			return fmt.Errorf("%w: %s: a new file has no old content", edits.ErrEdit, fc.URI)
		case fc.Delete && (fc.Create || fc.New != ""):
			return fmt.Errorf("%w: %s: a deleted file has no new content", edits.ErrEdit, fc.URI)
		}
		seen[fc.URI] = true
	}
	return nil
}

func versioned(u uri.URI, version *int32) protocol.OptionalVersionedTextDocumentIdentifier {
	if version != nil {
		version = ptr(*version) // do not alias the caller's variable
	}
	return protocol.OptionalVersionedTextDocumentIdentifier{
		TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u},
		Version:                version,
	}
}

func defaultLabel(changed []uri.URI) string {
	label := "agentls: " + path.Base(changed[0].Path())
	if n := len(changed) - 1; n == 1 {
		label += " and 1 more file"
	} else if n > 1 {
		label += fmt.Sprintf(" and %d more files", n)
	}
	return label
}

// describe returns e.g. "Fix the parser — 2 files, +3 −1".
func describe(prefix string, files int, s edits.Stat) string {
	text := fmt.Sprintf("%d files, %s", files, s)
	if files == 1 {
		text = "1 file, " + s.String()
	}
	if prefix == "" {
		return text
	}
	return prefix + " — " + text
}

func ptr[T any](v T) *T { return &v }
