//go:build linux || darwin

package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// A terminal is a pseudo-terminal that agentls runs on, in process, and
// the test types into.
type terminal struct {
	t      *testing.T
	master *os.File
	chunks chan []byte
	seen   bytes.Buffer // output not yet matched
	all    bytes.Buffer // all output, for failures
	code   chan int
	stderr bytes.Buffer
}

// startTerminal runs agentls with args on a new pseudo-terminal.
func startTerminal(t *testing.T, env map[string]string, args ...string) *terminal {
	t.Helper()
	master, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	term := &terminal{t: t, master: master, chunks: make(chan []byte, 64), code: make(chan int, 1)}
	read := make(chan struct{})
	go func() {
		defer close(read)
		defer close(term.chunks)
		for {
			b := make([]byte, 4096)
			n, err := master.Read(b)
			if n > 0 {
				term.chunks <- b[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { term.code <- run(context.Background(), args, tty, tty, &term.stderr, environ(env)) }()
	t.Cleanup(func() {
		tty.Close()
		master.Close()
		for range term.chunks {
		}
		<-read
	})
	return term
}

// expect waits until the terminal shows want, after what was matched last.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		if i := strings.Index(term.seen.String(), want); i >= 0 {
			term.seen.Next(i + len(want))
			return
		}
		select {
		case b, ok := <-term.chunks:
			if !ok {
				term.t.Fatalf("the terminal closed before showing %q:\n%s", want, term.all.String())
			}
			term.seen.Write(b)
			term.all.Write(b)
		case <-deadline:
			term.t.Fatalf("the terminal did not show %q:\n%s", want, term.all.String())
		}
	}
}

// answer types a line.
func (term *terminal) answer(s string) {
	term.t.Helper()
	if _, err := term.master.Write([]byte(s + "\n")); err != nil {
		term.t.Fatal(err)
	}
}

// exit waits for agentls to end and returns its exit code.
func (term *terminal) exit() int {
	term.t.Helper()
	select {
	case code := <-term.code:
		return code
	case <-time.After(20 * time.Second):
		term.t.Fatalf("agentls did not end:\n%s", term.all.String())
		return -1
	}
}

// On a terminal agentls colours the diff and asks for each proposal and
// approval: any other answer explains the answers, d shows the whole diff
// or command, y applies, q stops the run.
func TestTerminalPrompts(t *testing.T) {
	t.Parallel()
	dir := copyExample(t)
	srv := geminitest.NewServer(t, demoTurnsWith("touch ran.txt")...)
	term := startTerminal(t, fakeEnv(srv), "run", "--workspace", dir, examplePrompt)

	term.expect(green + "+func Greet(name string) string {" + reset)
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("what")
	term.expect("y = apply this change, n = reject it")
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("d")
	term.expect(red + "-// Hello returns a greeting." + reset)
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("y")
	term.expect("change to main.go: applied")
	term.expect(green + "+\tfmt.Println(Greet(")
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("y")
	term.expect("Run `touch ran.txt` in " + dir + "? (check no Hello is left) [y/n/a/d/q] ")
	term.answer("d")
	term.expect("command: touch ran.txt")
	term.expect("[y/n/a/d/q] ")
	term.answer("q")
	term.expect("✗ Cancelled")
	if code := term.exit(); code != 3 {
		t.Errorf("exit %d, want 3 (aborted)\n%s", code, term.stderr.String())
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "main.go")); strings.Contains(string(b), "Hello(") {
		t.Errorf("main.go:\n%s", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Error("the command ran after q")
	}
}

// a applies this proposal and every later one without asking.
func TestTerminalAlways(t *testing.T) {
	t.Parallel()
	dir := copyExample(t)
	srv := geminitest.NewServer(t, demoTurnsWith("touch ran.txt")...)
	term := startTerminal(t, fakeEnv(srv), "run", "--workspace", dir, examplePrompt)
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("a")
	term.expect("Run `touch ran.txt`")
	if strings.Count(term.all.String(), "Apply the change") != 1 {
		t.Errorf("asked again after a:\n%s", term.all.String())
	}
	term.expect("[y/n/a/d/q] ")
	term.answer("y")
	term.expect("✓ Done")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d\n%s", code, term.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err != nil {
		t.Errorf("the allowed command did not run: %v", err)
	}
}

// A line typed before a question was shown does not answer it: "a\ny"
// answers the change with a, and the y typed ahead of the command's question
// is discarded; the question waits for its own answer.
func TestTerminalDiscardsTypeAhead(t *testing.T) {
	t.Parallel()
	dir := copyExample(t)
	srv := geminitest.NewServer(t, demoTurnsWith("touch ran.txt")...)
	term := startTerminal(t, fakeEnv(srv), "run", "--workspace", dir, examplePrompt)
	term.expect("Apply the change to main.go? [y/n/a/d/q] ")
	term.answer("a\ny")
	term.expect("Run `touch ran.txt` in " + dir + "? (check no Hello is left) [y/n/a/d/q] ")
	term.answer("n")
	term.expect("✓ Done")
	if code := term.exit(); code != 0 {
		t.Errorf("exit %d\n%s", code, term.stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "ran.txt")); err == nil {
		t.Error("a line typed ahead allowed the command")
	}
}
