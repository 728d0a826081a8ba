package lsp_test

import (
	"io"
	"log"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package when a goroutine outlives its tests: every
// run, proposal and progress timer must end with its connection. The genai
// SDK logs every cancelled stream with the standard logger ("Error context
// canceled"); the tests cancel many.
func TestMain(m *testing.M) {
	log.SetOutput(io.Discard)
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"))
}
