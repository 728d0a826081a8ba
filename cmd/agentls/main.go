// Command agentls is a language server that runs an agent harness behind the
// Language Server Protocol, and the same harness on a terminal.
//
// Usage:
//
//	agentls serve                   speak LSP on stdin/stdout
//	agentls acp [flags]             speak the Agent Client Protocol on stdin/stdout
//	agentls run [flags] PROMPT      run the agent on a terminal
//	agentls replay [flags] TRACE    run a recorded run again, offline
//	agentls runs [flags]            list recent runs
//	agentls sessions [flags]        list the workspace's sessions
//	agentls revert [flags] RUNID    undo a run's accepted changes
//	agentls trace show TRACE        summarize one run
//	agentls trust [--workspace DIR] trust a workspace's policy file
//	agentls version                 print the version
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
)

// version is set at build time with -ldflags "-X main.version=…"; else
// the module's build information tells it (see versionString).
var version = "devel"

// versionString is agentls's version: the one set at build time, else the
// module version go install recorded, with the commit a build from a
// checkout was made of.
func versionString() string {
	bi, ok := debug.ReadBuildInfo()
	if version != "devel" || !ok {
		return version
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = ", modified"
			}
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" {
		v += " (commit " + rev + modified + ")"
	}
	return v + " " + bi.GoVersion
}

func main() {
	environ := os.Environ()
	if err := protect(); err != nil {
		fmt.Fprintf(os.Stderr, "agentls: commands may read the credentials in this process's environment: %v\n", err)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, environ)
	stop()
	os.Exit(code)
}

// env is the process environment, as "NAME=value" entries.
type env []string

// get returns the value of a variable, "" when unset.
func (e env) get(name string) string {
	for i := len(e) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(e[i], "="); ok && k == name {
			return v
		}
	}
	return ""
}

// run is main without the process: it returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, environ []string) int {
	e := env(environ)
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch args[0] {
	case "serve":
		return serve(ctx, args[1:], stderr, e)
	case "acp":
		return acpCmd(ctx, args[1:], stdin, stdout, stderr, e)
	case "run":
		return runCmd(ctx, args[1:], stdin, stdout, stderr, e)
	case "replay":
		return replayCmd(ctx, args[1:], stdout, stderr, e)
	case "runs":
		return runsCmd(args[1:], stdout, stderr, e)
	case "sessions":
		return sessionsCmd(args[1:], stdout, stderr, e)
	case "revert":
		return revertCmd(ctx, args[1:], stdin, stdout, stderr, e)
	case "trace":
		return traceCmd(args[1:], stdout, stderr, e)
	case "trust":
		return trustCmd(args[1:], stdin, stdout, stderr, e)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "agentls %s\n", versionString())
		return 0
	case "help", "-h", "--help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "agentls: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage:
  agentls serve                     speak LSP on stdin/stdout (logs on stderr)
  agentls acp [flags]               speak the Agent Client Protocol on stdin/stdout (Zed, JetBrains…)
  agentls run [flags] "PROMPT"      run the agent on a terminal (agentls run -h)
  agentls replay [flags] TRACE      run a recorded run again: no model call, no command
  agentls runs [flags]              list recent runs
  agentls sessions [flags]          list the workspace's sessions (--delete ID)
  agentls revert [flags] RUNID      undo the changes of a run, asking first
  agentls trace show TRACE|RUNID    summarize one run
  agentls trust [--workspace DIR]   show a workspace policy file's allow rules and trust it
  agentls version                   print the version
`)
}
