package lsp

import "encoding/json"

// bigText is the length of JSON from which the transport lifts a text out
// of a didOpen or didChange frame (transport.Stream.SetLift): the text is
// decoded once, in the frame's own buffer, and neither jsonrpc2's scanner
// nor encoding/json (seconds over a 200 MB string) reads it.
const bigText = 64 << 10

// decodeSync decodes the params of didOpen or didChange into v with
// encoding/json, then puts back the texts the transport lifted out of them:
// texts lists the fields of v that may hold a placeholder for one.
func (s *Server) decodeSync(params []byte, v any, texts func() []*string) error {
	if err := json.Unmarshal(params, v); err != nil {
		return err
	}
	if s.lifted == nil {
		return nil
	}
	for _, p := range texts() {
		t, err := s.lifted(*p)
		if err != nil {
			return err
		}
		*p = t
	}
	return nil
}
