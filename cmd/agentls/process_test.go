//go:build linux

package main

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/gemini/geminitest"
)

// A process is agentls run as a process of its own: the test binary,
// started as agentls (see TestMain). When the tests run as root it runs as
// nobody, so that what it can read is what a user's process can.
type process struct {
	t    *testing.T
	dir  string // a folder the process may write: the workspace is dir/ws
	exe  string
	cred *syscall.Credential
}

func newProcess(t *testing.T) *process {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir, err := os.MkdirTemp("", "agentls-process-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &process{t: t, dir: dir, exe: exe}
	if os.Geteuid() == 0 {
		// nobody must be able to run the binary and write the folder.
		p.exe = filepath.Join(dir, "agentls")
		copyFile(t, exe, p.exe)
		p.cred = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	if err := os.MkdirAll(filepath.Join(dir, "ws"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// own hands the process's folder to the user it runs as.
func (p *process) own() {
	os.Chmod(p.dir, 0o755)
	if p.cred == nil {
		return
	}
	filepath.Walk(p.dir, func(path string, fi os.FileInfo, err error) error {
		if err == nil {
			os.Lchown(path, int(p.cred.Uid), int(p.cred.Gid))
		}
		return nil
	})
}

// start starts agentls with args, env as its whole environment, and stdin.
func (p *process) start(env map[string]string, stdin string, args ...string) *exec.Cmd {
	p.t.Helper()
	p.own()
	env["AGENTLS_TEST_MAIN"] = "1"
	env["XDG_CONFIG_HOME"] = filepath.Join(p.dir, "config")
	env["XDG_STATE_HOME"] = filepath.Join(p.dir, "state")
	env["PATH"] = os.Getenv("PATH")
	cmd := exec.Command(p.exe, args...)
	cmd.Env, cmd.Dir = environ(env), p.dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred}
	if err := cmd.Start(); err != nil {
		p.t.Skipf("cannot start agentls as a process of its own: %v", err)
	}
	return cmd
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// An approved command cannot read the model's key from any process it can
// see: not from agentls's initial environment block (/proc/<pid>/environ,
// which removing a variable does not erase), not from its supervisor's,
// not from its own.
func TestCommandsCannotReadTheKey(t *testing.T) {
	t.Parallel()
	p := newProcess(t)
	const key = "AIzaTEST-the-model-key-5c7e"
	write(t, filepath.Join(p.dir, "ws", "key.txt"), key+"\n")
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{
			"command": "grep -l -a -F -f key.txt /proc/[0-9]*/environ /proc/$PPID/cmdline 2>/dev/null; echo scanned"})),
		geminitest.Reply(geminitest.Call(agent.CompleteTaskName, map[string]any{"result": "done"})))
	cmd := p.start(map[string]string{"GEMINI_API_KEY": key, "GOOGLE_GEMINI_BASE_URL": srv.URL},
		"y\n", "run", "--workspace", filepath.Join(p.dir, "ws"), "look around")
	if err := cmd.Wait(); err != nil {
		t.Fatalf("agentls: %v", err)
	}
	if got := toolResults(srv); len(got) != 1 || !strings.Contains(got[0], "Output:\nscanned\n") {
		t.Errorf("the command found the key: %q", got)
	}
}

// agentls killed with SIGKILL while a command runs leaves nothing behind:
// the command's supervisor ends the shell and the daemon it started.
func TestKilledAgentlsLeavesNoProcess(t *testing.T) {
	t.Parallel()
	p := newProcess(t)
	ws := filepath.Join(p.dir, "ws")
	write(t, filepath.Join(ws, "d.sh"), "echo $$ > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\nexec sleep 300\n")
	srv := geminitest.NewServer(t,
		geminitest.Reply(geminitest.Call("run_shell_command", map[string]any{"command": "setsid -f sh d.sh daemon.pid; sh d.sh shell.pid"})),
		geminitest.Reply(geminitest.Call(agent.CompleteTaskName, map[string]any{"result": "done"})))
	cmd := p.start(map[string]string{"GEMINI_API_KEY": "test-key", "GOOGLE_GEMINI_BASE_URL": srv.URL},
		"y\n", "run", "--workspace", ws, "start a server")
	pids := []int{readPIDFile(t, filepath.Join(ws, "shell.pid")), readPIDFile(t, filepath.Join(ws, "daemon.pid"))}
	cmd.Process.Kill()
	cmd.Wait()
	for _, pid := range pids {
		waitGone(t, pid)
	}
}

// readPIDFile waits for a process to write its pid to file.
func readPIDFile(t *testing.T, file string) int {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if b, err := os.ReadFile(file); err == nil {
			if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return pid
			}
		}
	}
	t.Fatalf("no pid in %s", file)
	return 0
}

// waitGone waits, for a bounded time, until the process pid has ended.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) || zombie(pid) {
			return
		}
	}
	t.Errorf("process %d outlived agentls", pid)
	syscall.Kill(pid, syscall.SIGKILL)
}

func zombie(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(s[i+1:], " Z")
}
