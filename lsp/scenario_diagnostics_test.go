package lsp_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"go.lsp.dev/protocol"
)

// The scenario editor as a plugin that sends the editor's diagnostics, and
// the server's fake clock.

// sendDiagnostics sends agentls/diagnostics for w[0] as the diagnostics
// step writes it (see parseSteps).
func (r *scenarioRun) sendDiagnostics(ctx context.Context, w []string) error {
	if len(w) < 1 {
		return fmt.Errorf("want: diagnostics <file> [@<version>|@none] [<diagnostic>…]")
	}
	u := r.uri(w[0])
	w = w[1:]
	var version *int32
	if v, open := r.ed.Version(u); open {
		version = &v
	}
	if len(w) > 0 && strings.HasPrefix(w[0], "@") {
		switch v := strings.TrimPrefix(w[0], "@"); v {
		case "none":
			version = nil
		default:
			n, err := strconv.ParseInt(v, 10, 32)
			if err != nil {
				return fmt.Errorf("version %q: %v", w[0], err)
			}
			version = ptr(int32(n))
		}
		w = w[1:]
	}
	ds := []protocol.Diagnostic{}
	for _, word := range w {
		d, err := parseDiagnostic(word)
		if err != nil {
			return err
		}
		ds = append(ds, d)
	}
	r.ed.Diagnostics(ctx, u, version, ds)
	return nil
}

// parseDiagnostic reads "<line> <severity> <source>: <message>", the line
// numbered from 1.
func parseDiagnostic(s string) (protocol.Diagnostic, error) {
	var d protocol.Diagnostic
	line, rest, _ := strings.Cut(s, " ")
	sev, rest, _ := strings.Cut(rest, " ")
	source, msg, ok := strings.Cut(rest, ": ")
	n, err := strconv.Atoi(line)
	if err != nil || n < 1 || !ok {
		return d, fmt.Errorf("diagnostic %q: want \"<line> <severity> <source>: <message>\", lines from 1", s)
	}
	severities := map[string]protocol.DiagnosticSeverity{"error": protocol.DiagnosticSeverityError, "warning": protocol.DiagnosticSeverityWarning,
		"info": protocol.DiagnosticSeverityInformation, "hint": protocol.DiagnosticSeverityHint}
	if d.Severity, ok = severities[sev]; !ok {
		return d, fmt.Errorf("diagnostic %q: unknown severity %q", s, sev)
	}
	at := protocol.Position{Line: uint32(n - 1)}
	d.Range = protocol.Range{Start: at, End: at}
	d.Source = protocol.NewOptional(source)
	d.Message = protocol.String(msg)
	return d, nil
}

// tick ends the server's waits of a duration, once one has begun.
func (r *scenarioRun) tick(ctx context.Context, w []string) error {
	if len(w) != 1 {
		return fmt.Errorf("want: tick <duration>")
	}
	if r.clock == nil {
		return fmt.Errorf("tick needs \"clock\": \"fake\" in the flags")
	}
	d, err := time.ParseDuration(w[0])
	if err != nil {
		return err
	}
	return r.clock.fireCtx(ctx, d)
}
