package transport

import (
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Codec is go.lsp.dev/protocol's wire codec (unexported there), for
// jsonrpc2.WithCodec: protocol types go through protocol.Marshal, raw
// messages pass through untouched. The server and the test editor use it.
type Codec struct{}

// Marshal implements jsonrpc2.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	if r, ok := v.(jsonrpc2.RawMessage); ok {
		if r == nil {
			return []byte("null"), nil
		}
		return r, nil
	}
	return protocol.Marshal(v)
}

// Unmarshal implements jsonrpc2.Codec.
func (Codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	// protocol.Unmarshal may leave strings aliasing b for some destinations
	// (slices of unions), and jsonrpc2 reuses b's buffer: decode a copy.
	return protocol.Unmarshal(slices.Clone(b), v)
}
