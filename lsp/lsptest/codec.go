package lsptest

import (
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// codec is go.lsp.dev/protocol's wire codec (unexported there).
type codec struct{}

func (codec) Marshal(v any) ([]byte, error) {
	if r, ok := v.(jsonrpc2.RawMessage); ok {
		return r, nil
	}
	return protocol.Marshal(v)
}

func (codec) Unmarshal(b []byte, v any) error {
	if p, ok := v.(*jsonrpc2.RawMessage); ok {
		*p = append(jsonrpc2.RawMessage(nil), b...)
		return nil
	}
	// protocol.Unmarshal may leave strings aliasing b for some destinations
	// (slices of unions), and jsonrpc2 reuses b's buffer: decode a copy.
	return protocol.Unmarshal(slices.Clone(b), v)
}
