//go:build unix

package policy

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// attackLines are command lines that read differently to a careless parser
// and to bash; each is a seed of FuzzParseCommand.
var attackLines = []string{
	`go test $'\'' ; touch x ; #'`,
	`go test x\ #; touch y`,
	`go test >1file`,
	`go test >|9file`,
	`go test &>1file`,
	`go test >&1file`,
	`go test 2>&1 >/dev/null`,
	`go test; touch x`,
	`go test && touch x`,
	`go test || touch x`,
	`go test | touch x`,
	"go test\ntouch x",
	`go test $(touch x)`,
	"go test `touch x`",
	`go test "$(touch x)"`,
	`go test <(touch x)`,
	`go test $((x[$(touch y)]))`,
	`go test & touch x`,
	`(go test; touch x)`,
	`{ go test; touch x; }`,
	`go test 'a;b' "c&&d" e\|f`,
	`go test # ; touch x`,
	`go test a#b; touch x`,
	`\go test`,
	`g''o te""st`,
	`$'go' $'test'`,
	`go test \
; touch x`,
	`go test $'\x3b touch x'`,
	`go test {a,b}`,
	`go test *`,
	`go test ~`,
	`go test $HOME`,
	`FOO=1 go test`,
	`eval go test`,
	`sh -c 'go test'`,
	`env go test`,
	`go test <<EOF
$(touch x)
EOF`,
	`go test <<< x`,
	`! go test`,
	`time go test`,
	`go test 3>&- 0<&3`,
	`go test >& /dev/null`,
	`go test {fd}>/dev/null`,
	`git --no-pager status`,
	`git -c alias.x='!touch y' x`,
	`python3 -m pytest -x`,
	"go test\r; touch x",
	"go test \u202e; touch x",
}

// FuzzParseCommand compares what ParseCommand says a line runs with what
// bash would run: bash -c reads the line in a dry run (an extdebug DEBUG
// trap records each simple command bash is about to run, as bash itself
// prints it, and skips it), in a temporary folder with no PATH. Where
// ParseCommand finds a simple line without redirections (one that an
// allow rule may allow), every command bash would run must be one of its
// calls, with no redirection it did not see; a line without || runs all of
// them.
func FuzzParseCommand(f *testing.F) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		f.Skip("no bash")
	}
	for _, l := range attackLines {
		f.Add(l)
	}
	fuzzing := flag.Lookup("test.fuzz").Value.String() != ""
	f.Fuzz(func(t *testing.T, line string) {
		c := ParseCommand(line)
		for _, r := range c.Runs {
			_ = r.String()
		}
		if c.Complex != "" || c.Redirection || len(c.Calls) == 0 || len(line) > 4096 {
			return // no rule allows it: nothing to compare
		}
		if strings.ContainsAny(line, "\x00\x01\x7f") {
			return // bash's own markers (CTLESC, CTLNUL) show doubled in the commands it prints
		}
		traced, ok := dryRun(t, bash, line, fuzzing)
		if !ok {
			return
		}
		var want []string
		for _, call := range c.Calls {
			want = append(want, shape(call))
		}
		var got []string
		for _, entry := range traced {
			tc := ParseCommand(entry)
			if tc.Complex != "" || tc.Redirection || len(tc.Calls) != 1 {
				t.Fatalf("%q: bash runs %q, which ParseCommand did not see (calls %q)", line, entry, want)
			}
			s := shape(tc.Calls[0])
			i := slices.Index(want, s)
			if i < 0 {
				t.Fatalf("%q: bash runs %q; ParseCommand saw only %q", line, entry, want)
			}
			want = slices.Delete(want, i, i+1)
			got = append(got, s)
		}
		if len(want) > 0 && !strings.Contains(line, "||") {
			t.Fatalf("%q: ParseCommand saw %q that bash does not run (bash ran %q)", line, want, got)
		}
	})
}

// shape is a call with its words' values where they are known, and a
// mark where only the shell knows them (bash spells those its own way).
func shape(c Call) string {
	var ws []string
	for _, w := range append(slices.Clone(c.Assigns), c.Words...) {
		if w.Static {
			ws = append(ws, w.quoted())
		} else {
			ws = append(ws, "<expanded>")
		}
	}
	return strings.Join(ws, " ")
}

const dryRunScript = `ulimit -f 1024
shopt -s extdebug
set -T
trap '[[ $BASH_COMMAND == "eval -- \"\$AGENTLS_LINE\"" ]] || { builtin printf "%s\0" "$BASH_COMMAND" >&3; false; }' DEBUG
eval -- "$AGENTLS_LINE"
`

// dryRun returns the simple commands bash -c line would run, skipping each
// (nothing runs), or false when bash took too long. A fuzzed line runs as
// nobody when the test runs as root, so that a wrong guess about what it
// writes cannot write where it matters.
func dryRun(t *testing.T, bash, line string, fuzzing bool) ([]string, bool) {
	dir, err := os.MkdirTemp("", "agentls-dryrun-") // not t.TempDir, whose parent only its owner may enter
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	trace, err := os.Create(filepath.Join(dir, ".trace"))
	if err != nil {
		t.Fatal(err)
	}
	defer trace.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", dryRunScript)
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/nonexistent", "HOME=" + dir, "AGENTLS_LINE=" + line, "LC_ALL=C"}
	cmd.ExtraFiles = []*os.File{trace}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if fuzzing {
		if os.Geteuid() != 0 {
			t.Skip("fuzzing runs bash as nobody, which needs root")
		}
		os.Chmod(dir, 0o777)
		os.Chmod(trace.Name(), 0o666)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: 65534, Gid: 65534}
	}
	if err := cmd.Run(); err != nil && cmd.ProcessState == nil {
		t.Fatalf("dry run: %v", err)
	}
	if ctx.Err() != nil {
		return nil, false
	}
	data, err := os.ReadFile(trace.Name())
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range bytes.Split(data, []byte{0}) {
		if len(e) > 0 {
			out = append(out, string(e))
		}
	}
	return out, true
}

// The dry run itself: bash's commands, in bash's spelling, and nothing run.
func TestDryRun(t *testing.T) {
	t.Parallel()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	got, ok := dryRun(t, bash, `go test $'\x3b' 2>/dev/null; touch x | cat; echo $(touch y)`, false)
	if !ok {
		t.Fatal("the dry run timed out")
	}
	want := []string{`go test ';' 2> /dev/null`, "cat", "touch x", "echo $(touch y)"}
	if len(got) == len(want) {
		slices.Sort(got[1:3]) // a pipeline's commands start in any order
	}
	if !slices.Equal(got, want) {
		t.Errorf("dry run traced %q, want %q", got, want)
	}
}
