// Command agentls is a language server that runs an agent harness behind the
// Language Server Protocol, and the same harness on a terminal.
//
// Usage:
//
//	agentls serve                 speak LSP on stdin/stdout
//	agentls run [flags] PROMPT    run the agent on a terminal
//	agentls version               print the version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "devel"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	if len(args) == 0 {
		usage(stderr)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr, getenv)
	case "run":
		return runCmd(ctx, args[1:], stdin, stdout, stderr, getenv)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "agentls %s\n", version)
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "agentls: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  agentls serve                     speak LSP on stdin/stdout (logs on stderr)
  agentls run [flags] "PROMPT"      run the agent on a terminal (agentls run -h)
  agentls version                   print the version
`)
}
