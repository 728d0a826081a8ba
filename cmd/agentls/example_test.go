package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent/gemini/geminitest"
	"github.com/agentls/agentls/agent/trace"
)

var update = flag.Bool("update", false, "rewrite the example trace from the scripted fake model")

const (
	exampleDir    = "../../examples/hello"
	exampleTrace  = "../../examples/hello.trace.jsonl"
	examplePrompt = "Rename the function Hello to Greet in main.go"
)

// turn is a scripted turn with a fixed usage, so that the example trace
// does not depend on the prompt's size (dates, folders).
func turn(prompt, output, thoughts int32, chunks ...geminitest.Chunk) geminitest.Turn {
	last := &chunks[len(chunks)-1]
	last.FinishReason = genai.FinishReasonStop
	last.Usage = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: prompt, CandidatesTokenCount: output,
		ThoughtsTokenCount: thoughts, TotalTokenCount: prompt + output + thoughts}
	return geminitest.Turn{Chunks: chunks}
}

// demoTurns is the scripted model session of the offline demo.
func demoTurns() []geminitest.Turn { return demoTurnsWith("grep -n 'Hello\\|Greet' main.go") }

// demoTurnsWith is the demo session with another shell command.
func demoTurnsWith(command string) []geminitest.Turn {
	return []geminitest.Turn{
		turn(1822, 8, 19,
			geminitest.Thought("**Looking at main.go**\n\nI will read the file to find Hello and its callers."),
			geminitest.Call("read_file", map[string]any{"file_path": "main.go"})),
		turn(1952, 71, 26,
			geminitest.Thought("**Renaming Hello to Greet**\n\nThe declaration and its one call in main both change; the doc comment too."),
			geminitest.Call("replace", map[string]any{
				"file_path":  "main.go",
				"old_string": "// Hello returns a greeting.\nfunc Hello(name string) string {",
				"new_string": "// Greet returns a greeting.\nfunc Greet(name string) string {",
			}),
			geminitest.Call("replace", map[string]any{
				"file_path":  "main.go",
				"old_string": "fmt.Println(Hello(",
				"new_string": "fmt.Println(Greet(",
			})),
		turn(2116, 30, 12,
			geminitest.Thought("**Checking the rename**\n\nNo Hello should be left."),
			geminitest.Call("run_shell_command", map[string]any{"command": command, "description": "check no Hello is left"})),
		turn(2240, 37, 0,
			geminitest.Text("Both changes were accepted, and only Greet is left."),
			geminitest.Call("complete_task", map[string]any{"result": "Renamed `Hello` to `Greet` in main.go: the declaration, its doc comment and the call in `main`."})),
	}
}

// TestExampleTrace records the demo run against the scripted fake model,
// the user answering y to both changes and the command, and checks it
// matches the trace shipped in examples/ but for times, the run id and the
// workspace's place (-update rewrites it).
func TestExampleTrace(t *testing.T) {
	if !*update {
		t.Parallel() // -update rewrites the file other tests read
	}
	srv := geminitest.NewServer(t, demoTurns()...)
	dir := copyExample(t)
	path := filepath.Join(t.TempDir(), "hello.trace.jsonl")
	code, out, errOut := agentls(t, fakeEnv(srv), "y\ny\ny\n", "run", "--workspace", dir, "--trace", path, examplePrompt)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, errOut)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(exampleTrace, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(exampleTrace)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(normalize(t, want), normalize(t, got)); diff != "" {
		t.Errorf("the recorded trace differs from %s (-shipped +recorded); run go test ./cmd/agentls -run TestExampleTrace -update\n%s", exampleTrace, diff)
	}
}

// normalize turns a trace into lines that leave out what changes from one
// recording to the next: times, durations, token estimates, the run id and
// the workspace's path.
func normalize(t *testing.T, b []byte) []string {
	t.Helper()
	tr, err := trace.Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(string(b), tr.Header.RunID, "RUN")
	text = strings.ReplaceAll(text, tr.Header.Workspace, "WS")
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		var v any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatal(err)
		}
		drop(v, "time", "durationNs", "date", "os", "tokens")
		nb, _ := json.Marshal(v)
		out = append(out, string(nb))
	}
	return out
}

func drop(v any, keys ...string) {
	switch x := v.(type) {
	case map[string]any:
		for _, k := range keys {
			delete(x, k)
		}
		for _, y := range x {
			drop(y, keys...)
		}
	case []any:
		for _, y := range x {
			drop(y, keys...)
		}
	}
}
