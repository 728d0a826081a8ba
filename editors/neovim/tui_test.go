//go:build linux

package neovim_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// A run, seen on Neovim's real screen (a pseudo-terminal of 80×24) with the
// plugin and nothing else, no notification plugin: it never stops at
// "Press ENTER" (Neovim 0.7 stopped three times for an explain run: the
// answer, the server's message of it, the last progress line). The test
// answers each prompt with Enter and counts them.
func TestNoPressEnter(t *testing.T) {
	eachNeovim(t, func(t *testing.T, nv neovim) {
		srv := geminitest.NewServer(t,
			geminitest.Reply(geminitest.Thought("**Reading main.go**\n\nI need to see the file first."),
				geminitest.Call("read_file", map[string]any{"file_path": "main.go"})),
			geminitest.Reply(geminitest.Call("complete_task", map[string]any{"result": "main.go prints a greeting.\n\n" +
				"Hello returns the string hi, and main prints it with fmt.Println, after a few words in several scripts.\nNothing else happens."})),
		)
		ws, tmp := workspace(t, map[string]string{"main.go": mainGo}), t.TempDir()
		pluginDir, err := filepath.Abs(".")
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(tmp, "result.json")
		term, err := openPTY(24, 80)
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer term.close()
		ctx, cancel := context.WithTimeout(t.Context(), nvimTimeout)
		defer cancel()
		environ := append(env(tmp, srv.URL), "TERM=xterm-256color", "AGENTLS_PLUGIN_DIR="+pluginDir,
			"AGENTLS_TEST_OUT="+out, "AGENTLS_TEST_PROMPT=explain this file")
		nvimArgs := []string{"-u", filepath.Join(pluginDir, "tests", "tui.lua"), "-i", "NONE", "main.go"}
		var cmd *exec.Cmd
		if nv.atLeast(0, 9) {
			// The terminal UI is a process of its own, which starts its
			// server as `nvim --embed` from /proc/self/exe: not what a
			// Neovim run through its own dynamic loader (CI's) can do.
			// Start the server, then the UI.
			sock := filepath.Join(tmp, "nvim.sock")
			server := exec.CommandContext(ctx, nv.path, append([]string{"--headless", "--listen", sock}, nvimArgs...)...)
			server.Dir, server.Env = ws, append(environ, "AGENTLS_TEST_READY=1")
			stdout, err := server.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			server.WaitDelay = 5 * time.Second
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { server.Process.Kill(); server.Wait() })
			if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "ready\n" {
				t.Fatalf("the Neovim server did not start: %q, %v", line, err)
			}
			cmd = exec.CommandContext(ctx, nv.path, "--remote-ui", "--server", sock)
		} else {
			cmd = exec.CommandContext(ctx, nv.path, nvimArgs...)
		}
		cmd.Dir = ws
		cmd.Env = environ
		cmd.Stdin, cmd.Stdout, cmd.Stderr = term.tty, term.tty, term.tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
		cmd.WaitDelay = 5 * time.Second
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		term.tty.Close() // nvim has it now
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()

		prompts, screen := term.answerPrompts(ctx, done)
		if ctx.Err() != nil {
			t.Fatalf("nvim did not finish within %s; the screen:\n%s", nvimTimeout, screen)
		}
		raw, err := os.ReadFile(out)
		if err != nil {
			t.Fatalf("no result (%v); the screen:\n%s", err, screen)
		}
		var r struct{ Reason, Result string }
		if err := json.Unmarshal(raw, &r); err != nil || r.Reason != "goal" {
			t.Fatalf("result %s: %v", raw, err)
		}
		if len(prompts) != 0 {
			t.Errorf("the run stopped %d times at Press ENTER, after:\n%s", len(prompts), strings.Join(prompts, "\n---\n"))
		}
	})
}

// A pty is a pseudo-terminal: the test holds its master side.
type pty struct {
	master, tty *os.File
}

// openPTY opens a pseudo-terminal of rows×cols (Linux: /dev/ptmx).
func openPTY(rows, cols uint16) (*pty, error) {
	master, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, err
	}
	ioctl := func(req uintptr, arg unsafe.Pointer) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, master.Fd(), req, uintptr(arg)); e != 0 {
			return e
		}
		return nil
	}
	var unlock int32
	var n uint32
	size := [4]uint16{rows, cols, 0, 0}
	if err := ioctl(syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		master.Close()
		return nil, fmt.Errorf("unlockpt: %w", err)
	}
	if err := ioctl(syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		master.Close()
		return nil, fmt.Errorf("ptsname: %w", err)
	}
	if err := ioctl(syscall.TIOCSWINSZ, unsafe.Pointer(&size)); err != nil {
		master.Close()
		return nil, fmt.Errorf("window size: %w", err)
	}
	tty, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		master.Close()
		return nil, err
	}
	return &pty{master: master, tty: tty}, nil
}

func (p *pty) close() {
	p.master.Close()
	p.tty.Close()
}

// escapes are terminal control sequences (CSI, OSC, charset and mode
// switches), left out of the screen's text.
var escapes = regexp.MustCompile(`\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78DEHMNOcs])`)

// answerPrompts reads the screen until nvim exits, presses Enter at each
// "Press ENTER" and returns the text before each prompt, and the last
// screen text.
func (p *pty) answerPrompts(ctx context.Context, done <-chan error) (prompts []string, screen string) {
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		buf := make([]byte, 64<<10)
		for {
			n, err := p.master.Read(buf)
			if n > 0 {
				chunks <- append([]byte(nil), buf[:n]...)
			}
			if err != nil {
				return
			}
		}
	}()
	var text strings.Builder
	seen := 0
	for {
		select {
		case b, ok := <-chunks:
			if !ok {
				chunks = nil
				continue
			}
			text.WriteString(escapes.ReplaceAllString(string(b), " "))
			s := text.String()
			for {
				i := strings.Index(s[seen:], "Press ENTER")
				if i < 0 {
					break
				}
				prompts = append(prompts, tail(s[:seen+i], 400))
				seen += i + len("Press ENTER")
				p.master.Write([]byte("\r"))
			}
		case <-done:
			return prompts, tail(text.String(), 3000)
		case <-ctx.Done():
			return prompts, tail(text.String(), 3000)
		}
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
