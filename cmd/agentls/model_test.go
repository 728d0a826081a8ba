package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

func modelsCalled(srv *geminitest.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.RPC != "listModels" {
			out = append(out, r.Model)
		}
	}
	return out
}

func TestRunDefaultModel(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t, geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "hi"})))
	srv.Retire("gemini-2.5-flash", "gemini-2.5-flash-lite", "gemini-2.5-pro")
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", t.TempDir(), "say hi")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if diff := cmp.Diff([]string{agent.DefaultModel}, modelsCalled(srv)); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
}

func TestRunRouterFlags(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Text(`{"model": "fast", "reason": "small"}`)),
		geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"})))
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", t.TempDir(), "--model", "auto",
		"--classifier-model", "my-classifier", "--fast-model", "my-fast", "rename x")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	if diff := cmp.Diff([]string{"my-classifier", "my-fast"}, modelsCalled(srv)); diff != "" {
		t.Errorf("models (-want +got):\n%s", diff)
	}
	code, _, errOut = agentls(t, fakeEnv(srv), "", "run", "--workspace", t.TempDir(), "--model", "auto", "--strong-model", " ", "x")
	if code != exitUsage || !strings.Contains(errOut, "--strong-model must name a model") {
		t.Errorf("--strong-model \" \": exit %d, stderr %q", code, errOut)
	}
}

// A model the key cannot use ends the run with one line that names it and
// the models it can use.
func TestRunModelNotAvailable(t *testing.T) {
	t.Parallel()
	srv := geminitest.NewServer(t)
	srv.Retire("gemini-2.5-flash")
	code, out, errOut := agentls(t, fakeEnv(srv), "", "run", "--workspace", t.TempDir(), "--model", "gemini-2.5-flash", "hi")
	if code == 0 {
		t.Fatalf("exit 0\n%s", out)
	}
	line := ""
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "Stopped") {
			line = l
		}
	}
	for _, want := range []string{`model "gemini-2.5-flash" is not available to this API key`, "no longer available to new users", "models it can use: gemini-flash-latest"} {
		if !strings.Contains(line, want) {
			t.Errorf("the stop line %q lacks %q\n%s\n%s", line, want, out, errOut)
		}
	}
	if strings.Contains(out, "Details:") || strings.Contains(out, "Error 404") {
		t.Errorf("output has genai's error dump:\n%s", out)
	}
}

func sameListing(n int) []geminitest.Turn {
	var turns []geminitest.Turn
	for range n {
		turns = append(turns, geminitest.Reply(geminitest.Call("list_directory", map[string]any{"dir_path": "."})))
	}
	return turns
}

// A looping model: --yes stops, as where no one can answer; on a terminal
// the user decides.
func TestRunLoop(t *testing.T) {
	t.Parallel()
	finish := geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "done"}))
	tests := []struct {
		name  string
		args  []string
		stdin string
		turns []geminitest.Turn
		code  int
		says  string
	}{
		{"--yes stops", []string{"--yes"}, "", sameListing(10), stopCodes[agent.StopLoop], "No (--yes): the run stops."},
		{"the user stops", nil, "n\n", sameListing(10), stopCodes[agent.StopLoop], "Keep going? [y/n]"},
		{"the user keeps going", nil, "y\n", append(sameListing(11), finish), 0, "Keep going? [y/n]"},
		{"detection off", []string{"--loop-detection=false"}, "", append(sameListing(11), finish), 0, "✓ Done"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			srv := geminitest.NewServer(t, tt.turns...)
			args := append(append([]string{"run", "--workspace", t.TempDir()}, tt.args...), "look around")
			code, out, errOut := agentls(t, fakeEnv(srv), tt.stdin, args...)
			if code != tt.code || !strings.Contains(out, tt.says) {
				t.Errorf("exit %d, want %d; output lacks %q?\n%s\n%s", code, tt.code, tt.says, out, errOut)
			}
		})
	}
}
