package neovim_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// applyResultSchema is the contract's schema of an applyEdit answer
// (docs/schema/ApplyResult.json), read once.
var applyResultSchema = sync.OnceValues(func() (*jsonschema.Resolved, error) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", "ApplyResult.json"))
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, err
	}
	return s.Resolve(nil)
})

// checkAnswers checks every applyEdit answer a scenario's plugin sent
// against the contract's schema: the plugin and the server speak one
// language, whatever the scenario was about.
func checkAnswers(raw json.RawMessage) error {
	resolved, err := applyResultSchema()
	if err != nil {
		return err
	}
	var answers []map[string]any
	if err := json.Unmarshal(raw, &answers); err != nil {
		return err
	}
	for i, a := range answers {
		if _, ok := a["cancelled"]; ok {
			continue // the test's note of a proposal withdrawn before any answer
		}
		if err := resolved.Validate(a); err != nil {
			b, _ := json.Marshal(a)
			return fmt.Errorf("answer %d %s does not follow docs/schema/ApplyResult.json: %v", i+1, b, err)
		}
	}
	return nil
}
