//go:build unix

package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/tools"
)

func shellCall(command string, more ...string) *genai.FunctionCall {
	args := map[string]any{"command": command}
	for i := 0; i+1 < len(more); i += 2 {
		args[more[i]] = more[i+1]
	}
	return call("run_shell_command", args)
}

func TestRunShellCommand(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{"ws/sub/f.txt": "x\n", "ws/.env": "KEY=1\n"})
	tests := []struct {
		name    string
		call    *genai.FunctionCall
		want    map[string]any
		display string
	}{{
		name:    "output and exit code",
		call:    shellCall("echo out; echo err >&2"),
		want:    output("Exit code: 0\nOutput:\nout\nerr\n"),
		display: "Ran `echo out; echo err >&2` (exit 0)",
	}, {
		name:    "a failing command is no tool error",
		call:    shellCall("echo no; exit 3"),
		want:    output("Exit code: 3\nOutput:\nno\n"),
		display: "Ran `echo no; exit 3` (exit 3)",
	}, {
		name:    "no output",
		call:    shellCall("true"),
		want:    output("Exit code: 0\nOutput: (none)\n"),
		display: "Ran `true` (exit 0)",
	}, {
		name:    "in dir_path",
		call:    shellCall("ls; pwd", "dir_path", "sub"),
		want:    output("Exit code: 0\nOutput:\nf.txt\n" + filepath.Join(d.root, "sub") + "\n"),
		display: "Ran `ls; pwd` (exit 0)",
	}, {
		name:    "cd inside the workspace",
		call:    shellCall("cd sub && cd .. && ls sub"),
		want:    output("Exit code: 0\nOutput:\nf.txt\n"),
		display: "Ran `cd sub && cd .. && ls sub` (exit 0)",
	}, {
		name:    "no input",
		call:    shellCall("cat"),
		want:    output("Exit code: 0\nOutput: (none)\n"),
		display: "Ran `cat` (exit 0)",
	}, {
		name:    "killed by a signal",
		call:    shellCall("kill -9 $$"),
		want:    output("The command was killed by a signal (killed).\nOutput: (none)\n"),
		display: "`kill -9 $$` was killed",
	}, {
		name: "empty command",
		call: shellCall("  "),
		want: toolErr("command is empty; give the command line to run"),
	}, {
		name: "dir_path is a file",
		call: shellCall("ls", "dir_path", "sub/f.txt"),
		want: toolErr(`dir_path "sub/f.txt" is not a folder of the workspace`),
	}, {
		name: "dir_path is missing",
		call: shellCall("ls", "dir_path", "nope"),
		want: toolErr(`dir_path "nope" is not a folder of the workspace`),
	}, {
		name: "cd out of the workspace",
		call: shellCall("cd .. && rm -rf ws"),
		want: toolErr("`cd ..` leaves the workspace; commands run inside it (use dir_path for another folder of the workspace)"),
	}, {
		name: "cd home",
		call: shellCall("cd; ls"),
		want: toolErr("`cd` leaves the workspace; commands run inside it (use dir_path for another folder of the workspace)"),
	}, {
		name: "cd to an absolute folder outside",
		call: shellCall("pushd /etc >/dev/null && cat passwd"),
		want: toolErr("`pushd /etc` leaves the workspace; commands run inside it (use dir_path for another folder of the workspace)"),
	}, {
		name: "bad arguments",
		call: call("run_shell_command", map[string]any{"command": 3}),
		want: toolErr("invalid arguments for run_shell_command: json: cannot unmarshal number into Go struct field shellArgs.command of type string"),
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := play(t, script{disk: d, cfg: approveAll, calls: []*genai.FunctionCall{tt.call}})
			if diff := cmp.Diff([]reply{{Name: "run_shell_command", Response: tt.want}}, tr.replies(t)); diff != "" {
				t.Errorf("function responses (-want +got):\n%s", diff)
			}
			steps := tr.steps()
			if last := steps[len(steps)-1]; last.Display != tt.display {
				t.Errorf("display = %q, want %q", last.Display, tt.display)
			}
		})
	}
}

// Long output keeps its head and its tail, and says how much was left out.
func TestShellOutputCap(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	tr := play(t, script{disk: d, cfg: approveAll, calls: []*genai.FunctionCall{
		shellCall("echo BEGIN; head -c 1000000 /dev/zero | tr '\\0' a; echo; printf 'é%.0s' $(seq 3000); echo; echo END"),
	}})
	out, _ := tr.replies(t)[0].Response["output"].(string)
	if !strings.HasPrefix(out, "Exit code: 0\nOutput:\nBEGIN\naaaa") || !strings.HasSuffix(out, "éé\nEND\n") {
		t.Errorf("output does not keep head and tail: %.100q … %q", out, out[max(0, len(out)-100):])
	}
	m := regexp.MustCompile(`\n\[… (\d+) bytes omitted …\]\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no omission marker in %d bytes of output", len(out))
	}
	if n, _ := strconv.Atoi(m[1]); n+len(out) < 1006000 || len(out) > 17<<10 {
		t.Errorf("%d bytes shown and %d omitted", len(out), n)
	}
	if !strings.Contains(out, "]\n") || strings.ContainsRune(out, '\uFFFD') {
		t.Errorf("the tail starts inside a character")
	}
}

// Shell commands never see the server's secrets.
func TestShellEnvironment(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	environ := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=/home/u", "LANG=C.UTF-8", "PAGER=less",
		"GEMINI_API_KEY=k1", "GOOGLE_API_KEY=k2", "GITHUB_TOKEN=t", "AWS_SECRET_ACCESS_KEY=s", "MY_SECRET=s2",
		"DB_PASSWORD=p", "GOOGLE_APPLICATION_CREDENTIALS=/c.json", "npm_config__auth_token=t2",
		"PROXY_URL=https://x:the-model-key-1234@proxy", "SAFE=the-model-key",
	}
	tr := play(t, script{disk: d, cfg: approveAll,
		env:   func(e *tools.Env) { e.Environ, e.Secrets = environ, []string{"the-model-key-1234"} },
		calls: []*genai.FunctionCall{shellCall("env | grep -v '^_=' | grep -v '^PWD=' | grep -v '^SHLVL=' | LC_ALL=C sort")}})
	want := "Exit code: 0\nOutput:\nAGENTLS=1\nGIT_PAGER=cat\nGIT_TERMINAL_PROMPT=0\nHOME=/home/u\nLANG=C.UTF-8\nPAGER=cat\nPATH=" + os.Getenv("PATH") + "\nSAFE=the-model-key\n"
	if diff := cmp.Diff([]reply{{Name: "run_shell_command", Response: output(want)}}, tr.replies(t)); diff != "" {
		t.Errorf("environment (-want +got):\n%s", diff)
	}
}

// Cancelling the run while a command runs kills the command's whole
// process group: nothing it started is left behind.
func TestShellCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	pidFile := filepath.Join(d.root, "pid")
	cancel := make(chan struct{})
	got := make(chan int, 1)
	go func() {
		got <- waitForPID(t, pidFile)
		close(cancel)
	}()
	tr := play(t, script{disk: d, cfg: approveAll, cancel: cancel,
		calls: []*genai.FunctionCall{shellCall("sleep 300 & echo $! > pid; wait")}})
	if tr.end.Reason != agent.StopAborted {
		t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, agent.StopAborted)
	}
	waitGone(t, <-got)
}

// A command that runs too long is stopped, with what it started, and the
// model is told.
func TestShellTimeout(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	start := time.Now()
	// The limit counts from the start of the command's supervisor, a
	// process of its own (a slow one, when built with the race detector on
	// a loaded machine): long enough for the command to start.
	tr := play(t, script{disk: d, cfg: approveAll, env: func(e *tools.Env) { e.ShellTimeout = 3 * time.Second },
		calls: []*genai.FunctionCall{shellCall("echo started; sleep 300 & echo $! > pid; wait")}})
	want := toolErr("The command timed out after 3s and was stopped, with every process it started.\nOutput:\nstarted\n")
	if diff := cmp.Diff([]reply{{Name: "run_shell_command", Response: want}}, tr.replies(t)); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
	if tr.end.Reason != agent.StopGoal {
		t.Errorf("run ended with %q, want the run to go on", tr.end.Reason)
	}
	waitGone(t, waitForPID(t, filepath.Join(d.root, "pid")))
	if el := time.Since(start); el > time.Minute {
		t.Errorf("the run took %s", el)
	}
}

// A command that leaves a process behind does not wait for it, and the
// process does not survive the call.
func TestShellBackgroundProcessStopped(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	tr := play(t, script{disk: d, cfg: approveAll,
		calls: []*genai.FunctionCall{shellCall("sleep 300 & echo $! > pid; echo left")}})
	if diff := cmp.Diff([]reply{{Name: "run_shell_command", Response: output("Exit code: 0\nOutput:\nleft\n")}}, tr.replies(t)); diff != "" {
		t.Errorf("function responses (-want +got):\n%s", diff)
	}
	waitGone(t, waitForPID(t, filepath.Join(d.root, "pid")))
}

// waitForPID waits for a process to write its pid to file, and returns it.
func waitForPID(t *testing.T, file string) int {
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		b, err := os.ReadFile(file)
		if err != nil || !strings.HasSuffix(string(b), "\n") {
			continue
		}
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			return pid
		}
	}
	t.Errorf("no pid in %s", file)
	return 0
}

// waitGone waits, for a bounded time, until the process pid no longer
// runs: it does not exist, or it is a zombie nobody has reaped yet.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	if pid <= 0 {
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
	}
	t.Errorf("process %d is still running", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b) // pid (comm) state …
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(s[i+1:], " Z")
}
