package tools_test

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
)

// daemonScript writes its pid to the file $1 and sleeps: the process an
// approved command means to leave behind.
const daemonScript = "echo $$ > \"$1.tmp\" && mv \"$1.tmp\" \"$1\"\nexec sleep 300\n"

// waitFor is a shell loop that waits until file has been written.
func waitFor(file string) string { return "\nuntil [ -s " + file + " ]; do sleep 0.01; done" }

// On Linux nothing a command starts outlives its call, however it leaves
// the process group or the session: each of these is gone, not merely
// signalled, when the tool result comes back.
func TestShellDaemonsEndWithTheCall(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, start string }{
		{"setsid -f", "setsid -f sh d.sh p"},
		{"setsid in a subshell", "(setsid sh d.sh p &)"},
		{"nohup and disown", "nohup sh d.sh p >/dev/null 2>&1 & disown"},
		{"orphaned grandchild", `sh -c "sh d.sh p &"`},
		{"own process group (set -m)", "set -m; sh d.sh p &"},
		{"ignoring signals", `setsid sh -c 'trap "" HUP INT TERM; exec sh d.sh p' &`},
		{"double fork holding the output", `(setsid sh d.sh p > /dev/stdout &)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			d := newDisk(t, map[string]string{"ws/d.sh": daemonScript})
			tr := play(t, script{disk: d, cfg: approveAll, calls: []*genai.FunctionCall{shellCall(tt.start + waitFor("p") + "; echo started")}})
			if got := tr.replies(t)[0].Response["output"]; got != "Exit code: 0\nOutput:\nstarted\n" {
				t.Errorf("result %q", got)
			}
			pid := readPID(t, filepath.Join(d.root, "p"))
			if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
				t.Errorf("the daemon %d outlived its call (kill: %v)", pid, err)
				syscall.Kill(pid, syscall.SIGKILL)
			}
		})
	}
}

// Cancelling the run ends the command and the daemon it started.
func TestShellCancelEndsDaemons(t *testing.T) {
	t.Parallel()
	d := newDisk(t, map[string]string{"ws/d.sh": daemonScript})
	cancel := make(chan struct{})
	got := make(chan int, 1)
	go func() {
		got <- waitForPID(t, filepath.Join(d.root, "pid"))
		close(cancel)
	}()
	tr := play(t, script{disk: d, cfg: approveAll, cancel: cancel,
		calls: []*genai.FunctionCall{shellCall("setsid -f sh d.sh daemon.pid" + waitFor("daemon.pid") + "; echo $$ > pid; sleep 300")}})
	if tr.end.Reason != agent.StopAborted {
		t.Errorf("run ended with %q (%s), want %q", tr.end.Reason, tr.end.Error, agent.StopAborted)
	}
	<-got
	pid := readPID(t, filepath.Join(d.root, "daemon.pid"))
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the daemon %d outlived the cancelled call (kill: %v)", pid, err)
		syscall.Kill(pid, syscall.SIGKILL)
	}
}

// A command cannot forge its result through the supervisor's status pipe.
func TestShellCannotForgeItsStatus(t *testing.T) {
	t.Parallel()
	d := newDisk(t, nil)
	tr := play(t, script{disk: d, cfg: approveAll, calls: []*genai.FunctionCall{shellCall("echo 0 >&4; echo 0 >&3; exit 7")}})
	out, _ := tr.replies(t)[0].Response["output"].(string)
	if !strings.HasPrefix(out, "Exit code: 7\n") {
		t.Errorf("result %q", out)
	}
}

func readPID(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}
