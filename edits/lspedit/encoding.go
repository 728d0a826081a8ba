package lspedit

import "go.lsp.dev/protocol"

// Encoding is a negotiated LSP position encoding: the unit in which
// Position.Character counts.
type Encoding int

const (
	// UTF16 counts UTF-16 code units, the LSP default.
	UTF16 Encoding = iota
	// UTF8 counts bytes.
	UTF8
	// UTF32 counts Unicode code points.
	UTF32
)

// ParseEncoding returns the Encoding for kind. An unknown or empty kind is
// UTF16, the encoding every client must support.
func ParseEncoding(kind protocol.PositionEncodingKind) Encoding {
	switch kind {
	case protocol.PositionEncodingKindUTF8:
		return UTF8
	case protocol.PositionEncodingKindUTF32:
		return UTF32
	default:
		return UTF16
	}
}

// Kind returns the LSP name of e.
func (e Encoding) Kind() protocol.PositionEncodingKind {
	switch e {
	case UTF8:
		return protocol.PositionEncodingKindUTF8
	case UTF32:
		return protocol.PositionEncodingKindUTF32
	default:
		return protocol.PositionEncodingKindUTF16
	}
}

// String returns the LSP name of e, e.g. "utf-16".
func (e Encoding) String() string { return string(e.Kind()) }

// width returns how many units of e the rune r occupies. An invalid byte
// decodes as utf8.RuneError (U+FFFD) and so counts as one unit.
func (e Encoding) width(r rune, size int) int {
	switch e {
	case UTF8:
		return size
	case UTF32:
		return 1
	default:
		if r >= 0x10000 {
			return 2 // a surrogate pair
		}
		return 1
	}
}
