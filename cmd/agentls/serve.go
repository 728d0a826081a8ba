package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"strings"

	"github.com/agentls/agentls/agent/session"
	"github.com/agentls/agentls/agent/trace"
	"github.com/agentls/agentls/lsp"
)

func serve(ctx context.Context, args []string, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "log debug messages")
	fs.Bool("stdio", true, "speak LSP on stdin/stdout (the default; accepted for clients that pass it)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	logger, traceDir := serverLog(stderr, *verbose, e)
	sessionDir, err := session.Dir(e.get)
	if err != nil {
		logger.Warn("sessions are kept in memory only", "err", err)
	}
	srv := lsp.New(lsp.Config{
		NewModel:      newModel(e),
		Secrets:       apiKeys(e),
		Logger:        logger,
		Version:       version,
		UserConfigDir: userConfigDir(e),
		TraceDir:      traceDir,
		SessionDir:    sessionDir,
		Environ:       e,
		// Over stdio, closing the connection can hang on a blocked read of
		// stdin: leave the way the spec says, with the process.
		Exit: func(code int) { os.Exit(code) },
	})
	err = srv.Serve(ctx, stdio{})
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return 1
	}
	return 0
}

// serverLog is the log of a long-lived server (serve, acp) on stderr, at
// debug level with verbose, and the folder its runs are traced in ("" when
// there is none, which is logged).
func serverLog(stderr io.Writer, verbose bool, e env) (*slog.Logger, string) {
	level := slog.LevelInfo
	if verbose {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	// The genai SDK reports through package log ("Error context canceled" on
	// every cancelled stream): keep it in the server's log, at debug level.
	log.SetFlags(0)
	log.SetOutput(sdkLog{logger})
	traceDir, err := trace.Dir(e.get)
	if err != nil {
		logger.Warn("runs are not traced", "err", err)
	}
	return logger, traceDir
}

// sdkLog writes package log's lines to the server's logger.
type sdkLog struct{ l *slog.Logger }

func (w sdkLog) Write(p []byte) (int, error) {
	w.l.Debug("genai: " + strings.TrimSpace(string(p)))
	return len(p), nil
}

// stdio is the server's end of the client's pipes.
type stdio struct{}

func (stdio) Read(p []byte) (int, error)  { return os.Stdin.Read(p) }
func (stdio) Write(p []byte) (int, error) { return os.Stdout.Write(p) }
func (stdio) Close() error                { return errors.Join(os.Stdin.Close(), os.Stdout.Close()) }
