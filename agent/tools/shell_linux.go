package tools

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// On Linux every command runs under a supervisor: agentls's own binary,
// started again under the name supervisorName, which becomes the command's
// child subreaper. Whatever the command starts stays below it, even a
// daemon that leaves the process group and the session (setsid -f): when
// a process dies its orphans are handed to the supervisor, not to init.
// When the shell ends, when the call is cancelled or times out, or when
// agentls dies (even by SIGKILL: the supervisor sees its control pipe
// close), the supervisor kills every process left below it, reaps them, and
// exits.
//
// The protocol: the supervisor's fd 3 is the read end of the control pipe,
// whose write end only the server holds (EOF: end the command now); fd 4
// is the status pipe, where it writes the shell's wait status in decimal
// once everything below it is gone.

// supervisorName is argv[0] of a supervisor; ps shows it so.
const supervisorName = "agentls-shell-supervisor"

// init turns the process into a supervisor when it was started as one.
// Every binary that links this package (agentls, and the tests of the
// packages that run commands) can so supervise its commands.
func init() {
	if len(os.Args) == 4 && os.Args[0] == supervisorName {
		os.Exit(supervise(os.Args[1], os.Args[2:]))
	}
}

// selfExe starts agentls's own binary, even when the file was replaced or
// deleted since (an upgrade while the editor keeps the server running).
const selfExe = "/proc/self/exe"

// execShell runs command under a supervisor, writing its output to out.
func execShell(ctx context.Context, command, dir string, env []string, timeout time.Duration, out io.Writer) shellRun {
	shell := shellPath()
	cmdCtx, cancel := context.WithTimeoutCause(ctx, timeout, errShellTimeout)
	defer cancel()

	var files []*os.File // the parent's ends, closed at return
	defer func() {
		for _, f := range files {
			f.Close()
		}
	}()
	pipe := func() (r, w *os.File, err error) {
		if r, w, err = os.Pipe(); err == nil {
			files = append(files, r, w)
		}
		return r, w, err
	}
	ctlR, ctlW, err1 := pipe()
	statR, statW, err2 := pipe()
	outR, outW, err3 := pipe()
	if err := errors.Join(err1, err2, err3); err != nil {
		return shellRun{err: err}
	}
	if supervisorEnv != "" {
		env = append([]string{supervisorEnv}, env...) // first: it wins
	}
	cmd := &exec.Cmd{Path: selfExe, Args: []string{supervisorName, shell, "-c", command}, Dir: dir, Env: env,
		Stdout: outW, Stderr: outW, ExtraFiles: []*os.File{ctlR, statW},
		// Its own process group: a terminal's Ctrl-C reaches agentls, which
		// ends the run, and not the command directly.
		SysProcAttr: &syscall.SysProcAttr{Setpgid: true}}
	err := cmd.Start()
	ctlR.Close()
	statW.Close()
	outW.Close()
	if err != nil {
		return shellRun{err: err}
	}
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		io.Copy(out, outR)
	}()
	var endOnce sync.Once
	end := func() { endOnce.Do(func() { ctlW.Close() }) }
	// A supervisor that cannot end what it supervises (a process stuck in
	// the kernel) is killed, so that the call ends; its shell dies with it.
	force := time.AfterFunc(time.Duration(math.MaxInt64), func() { cmd.Process.Kill() })
	defer force.Stop()
	stop := context.AfterFunc(cmdCtx, func() {
		end()
		force.Reset(shellDrain)
	})
	defer stop()
	status, statErr := io.ReadAll(statR) // until the supervisor exits
	end()
	waitErr := cmd.Wait()
	select {
	case <-drained:
	case <-time.After(shellDrain):
		outR.Close() // Inv: not reached on Linux, where nothing outlives the supervisor
		<-drained
	}

	r := shellRun{timedOut: errors.Is(context.Cause(cmdCtx), errShellTimeout) && ctx.Err() == nil}
	ws, err := strconv.ParseUint(strings.TrimSpace(string(status)), 10, 32)
	switch {
	case err == nil && statErr == nil:
		r.setStatus(syscall.WaitStatus(ws))
	case strings.HasPrefix(string(status), "error: "):
		r.err = errors.New(strings.TrimSpace(strings.TrimPrefix(string(status), "error: ")))
	case cmd.ProcessState != nil: // the supervisor was killed: report how
		sws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		r.setStatus(sws)
	default:
		r.err = waitErr
	}
	return r
}

// supervise runs shell with args as the supervisor of one command (see
// the top of this file) and returns the supervisor's exit code.
func supervise(shell string, args []string) int {
	// The pipes are the supervisor's alone: a command that could write the
	// status pipe could forge its exit code.
	syscall.CloseOnExec(3)
	syscall.CloseOnExec(4)
	status := os.NewFile(4, "status")
	report := func(format string, a ...any) int {
		fmt.Fprintf(status, format+"\n", a...)
		return 0
	}
	// Pdeathsig is sent when the thread that started the child ends: keep
	// this goroutine on its thread for good.
	runtime.LockOSThread()
	// Without it (a seccomp filter may refuse it) the command still runs,
	// and only what stays in its process group or below the shell is found.
	unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
	env := os.Environ()
	if len(env) > 0 && supervisorEnv != "" && env[0] == supervisorEnv {
		env = env[1:]
	}
	proc, err := os.StartProcess(shell, append([]string{shell}, args...), &os.ProcAttr{
		Env: env, Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		// The shell dies with the supervisor, whatever kills it.
		Sys: &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL},
	})
	if err != nil {
		return report("error: %v", err)
	}
	os.Stdout.Close() // the output pipe: only the command holds it now
	os.Stderr.Close()

	exited := make(chan syscall.WaitStatus, 1)
	go func() { exited <- reapUntil(proc.Pid) }()
	cancelled := make(chan struct{})
	go func() {
		io.Copy(io.Discard, os.NewFile(3, "control")) // until the server closes it, or dies
		close(cancelled)
	}()
	var ws syscall.WaitStatus
	select {
	case ws = <-exited:
	case <-cancelled:
		syscall.Kill(-proc.Pid, syscall.SIGKILL)
		ws = <-exited
	}
	killDescendants()
	return report("%d", uint32(ws))
}

// reapUntil reaps the supervisor's children (the orphans of the command
// that end meanwhile) until pid ends, and returns its status.
func reapUntil(pid int) syscall.WaitStatus {
	for {
		var ws syscall.WaitStatus
		got, err := syscall.Wait4(-1, &ws, 0, nil)
		switch {
		case errors.Is(err, syscall.EINTR):
		case err != nil:
			return syscall.WaitStatus(uint32(syscall.SIGKILL)) // Inv: pid is a child; not reached
		case got == pid:
			return ws
		}
	}
}

// killDescendants kills every process below the supervisor and reaps it.
// As a subreaper it inherits the children of each process it kills, so it
// goes on until it has no child left.
func killDescendants() {
	var ws syscall.WaitStatus
	for {
		pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, nil)
		switch {
		case errors.Is(err, syscall.ECHILD):
			return // the common case: the command left nothing
		case err != nil || pid > 0:
			continue // a child was reaped; look again
		}
		for _, pid := range children() {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		syscall.Wait4(-1, &ws, 0, nil)
	}
}

// children lists the processes whose parent is this one.
func children() []int {
	self := os.Getpid()
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if ppid, ok := parentOf(pid); ok && ppid == self {
			out = append(out, pid)
		}
	}
	return out
}

// parentOf reads a process's parent from /proc/<pid>/stat.
func parentOf(pid int) (int, bool) {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	// pid (comm) state ppid …; comm may hold spaces and parentheses.
	i := strings.LastIndexByte(line, ')')
	if i < 0 {
		return 0, false
	}
	fields := strings.Fields(line[i+1:])
	if len(fields) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(fields[1])
	return ppid, err == nil
}
