package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// maxSchema bounds the input schema of a tool: the model reads it every
// turn.
const maxSchema = 64 << 10

// inputSchema checks the input schema a server declared for a tool and
// returns it as JSON, as it is: a JSON Schema of an object, which resolves
// (its patterns compile, its references lead somewhere).
func inputSchema(v any) (json.RawMessage, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("not JSON: %v", err)
	}
	raw = bytes.TrimSpace(raw)
	if len(raw) > maxSchema {
		return nil, fmt.Errorf("larger than %d KiB", maxSchema>>10)
	}
	if len(raw) == 0 || raw[0] != '{' {
		return nil, fmt.Errorf("%.60s is not a JSON object", raw)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, err
	}
	if s.Type != "object" {
		return nil, errors.New(`its type is not "object"`)
	}
	if _, err := s.Resolve(nil); err != nil {
		return nil, err
	}
	return json.RawMessage(raw), nil
}
