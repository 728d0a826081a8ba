package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/agentls/agentls/acp"
	"github.com/agentls/agentls/agent/mcp"
	"github.com/agentls/agentls/contract"
)

// envSettings names the environment variable that holds settings, as a
// JSON object, over the settings files: ACP clients start agents with an
// environment of their choosing, and have no workspace/configuration.
const envSettings = "AGENTLS_SETTINGS"

func acpCmd(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, e env) int {
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	verbose := fs.Bool("v", false, "log debug messages")
	file := fs.String("settings", "", "a settings file (JSON) read over the user's settings.json")
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: agentls acp [flags]\n\nSpeaks the Agent Client Protocol on stdin/stdout (logs on stderr).\nSettings: the user's settings.json, then --settings, then $%s (a JSON object).\n\n", envSettings)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return exitUsage
	}
	if fs.NArg() > 0 {
		fs.Usage()
		return exitUsage
	}
	logger, traceDir := serverLog(stderr, *verbose, e)
	settings, problems := acpSettings(e, *file)
	for _, p := range problems {
		logger.Warn("settings: " + p)
	}
	host := newHost(e, traceDir, stderr)
	host.Warn = func(msg string) { logger.Warn(msg) }
	host.MCP = mcp.New(mcp.Config{Environ: e, Secrets: host.Secrets, Version: version})
	defer host.Wait()      // a prune of the trace folder
	defer host.MCP.Close() // every MCP server, with its process group, once the turns have stopped
	srv := acp.New(acp.Config{Host: host, Settings: settings, Problems: problems,
		PolicyFile: userPolicyFile(e), Version: version, Logger: logger})
	if err := srv.Serve(ctx, stdin, stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintf(stderr, "agentls: %v\n", err)
		return exitError
	}
	return 0
}

// acpSettings are the settings of `agentls acp`: the defaults, then the
// user's settings.json (in the user's agentls folder), then the file named
// by --settings, then $AGENTLS_SETTINGS. What is wrong with them is
// returned, the file or variable named.
func acpSettings(e env, file string) (contract.Settings, []string) {
	s := contract.DefaultSettings()
	var problems []string
	merge := func(where string, raw []byte) {
		for _, p := range s.Merge(raw) {
			problems = append(problems, where+": "+p)
		}
	}
	for _, f := range []string{contract.UserSettingsFile(userConfigDir(e)), file} {
		raw, err := contract.ReadSettingsFile(f)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf("%s is ignored: %v", f, err))
		case raw == nil && f == file && f != "":
			problems = append(problems, fmt.Sprintf("%s: no such file", f))
		case raw != nil:
			merge(f, raw)
		}
	}
	if v := e.get(envSettings); v != "" {
		merge("$"+envSettings, []byte(v))
	}
	return s, problems
}
