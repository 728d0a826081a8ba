package contract

import (
	"fmt"
	"strconv"
	"strings"

	"go.lsp.dev/uri"
)

// ApplyResult is the client's answer to workspace/applyEdit, with the agentls
// extension: what the user made of each file when a plugin let them decide
// hunk by hunk.
type ApplyResult struct {
	Applied       bool            `json:"applied"`
	FailureReason *string         `json:"failureReason,omitempty"`
	FailedChange  *uint32         `json:"failedChange,omitempty"`
	Agentls       *ApplyExtension `json:"agentls,omitempty" jsonschema:"what the user made of each file, from a plugin that lets them decide hunk by hunk"`
}

// ApplyExtension is the agentls field of an ApplyResult.
type ApplyExtension struct {
	Files []ClientFile `json:"files"`
}

// A ClientFile is one file of the agentls extension: its final buffer text
// after the user's partial decision and the hunks rejected or edited,
// numbered as [Hunks] numbers them.
type ClientFile struct {
	URI           uri.URI `json:"uri"`
	Text          *string `json:"text" jsonschema:"the buffer's text after the user's decision"`
	RejectedHunks []int   `json:"rejectedHunks,omitempty" jsonschema:"hunks the user rejected, from 0"`
	EditedHunks   []int   `json:"editedHunks,omitempty" jsonschema:"hunks the user edited before accepting, from 0"`
}

// annotationPrefix starts every change annotation id the server sends.
const annotationPrefix = "agentls/"

// AnnotationID is the change annotation id of the n-th annotated file change
// (from 1) of run runID: "agentls/<runId>/<n>". A plugin reads the run a
// proposal belongs to from it ([RunOfAnnotation]); it never guesses.
func AnnotationID(runID string, n int) string {
	return fmt.Sprintf("%s%s/%d", annotationPrefix, runID, n)
}

// RunOfAnnotation returns the run id an annotation id names, and false for
// an id the server did not make.
func RunOfAnnotation(id string) (string, bool) {
	rest, ok := strings.CutPrefix(id, annotationPrefix)
	if !ok {
		return "", false
	}
	i := strings.LastIndexByte(rest, '/')
	if i <= 0 {
		return "", false
	}
	if n, err := strconv.Atoi(rest[i+1:]); err != nil || n < 1 {
		return "", false
	}
	return rest[:i], true
}
