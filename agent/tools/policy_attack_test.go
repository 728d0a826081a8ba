//go:build unix

package tools_test

import (
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/genai"

	"github.com/agentls/agentls/agent"
	"github.com/agentls/agentls/agent/policy"
)

// A command line an allow rule names runs; one that hides another command
// (quotes bash reads differently, substitutions, redirections, lists) is
// asked about, and the user says no: on a real disk through a real shell,
// the marker file is never made.
func TestAllowRuleAttacks(t *testing.T) {
	t.Parallel()
	const rules = "[[rule]]\ncommandPrefix = [\"echo\", \"git status\"]\ndecision = \"allow\"\n"
	for _, line := range []string{
		`echo $'\'' ; touch m ; #'`,
		`echo x\ #; touch m`,
		`echo hi >1m`,
		`echo hi >|1m`,
		`echo hi &>1m`,
		`echo hi >&1m`,
		`echo hi >m`,
		`echo $(touch m)`,
		"echo `touch m`",
		`echo "$(touch m)"`,
		`echo <(touch m)`,
		`echo $((x[$(touch m)]))`,
		`echo; touch m`,
		`echo && touch m`,
		`echo || touch m; touch m`,
		`echo | touch m`,
		"echo\ntouch m",
		`echo & touch m`,
		`(echo; touch m)`,
		`{ echo; touch m; }`,
		"cat <<EOF\n$(touch m)\nEOF",
		`eval touch m`,
		`echo m | xargs touch`,
		`env touch m`,
		`sh -c 'touch m'`,
		`PATH=. echo; touch m`,
		`!(touch m)`,
		`git -c alias.status='!touch m' status`,
		`if echo; then touch m; fi`,
		`f() { touch m; }; f`,
	} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			d := newDisk(t, map[string]string{"ws/.agentls/policy.toml": rules})
			approver := &fakeApprover{answer: func(agent.Approval) (bool, error) { return false, nil }}
			play(t, script{disk: d, calls: []*genai.FunctionCall{shellCall(line)}, cfg: func(c *agent.Config) {
				c.Policy, c.Approver = trustedEngine(t, d.root).WithMode(policy.ModeDefault), approver
			}})
			for _, marker := range []string{"m", "1m"} {
				if _, err := os.Stat(filepath.Join(d.root, marker)); err == nil {
					t.Errorf("%q made %s", line, marker)
				}
			}
			if len(approver.asked()) != 1 {
				t.Errorf("%q: asked %d times, want once", line, len(approver.asked()))
			}
		})
	}
	// The rule does allow what it names.
	d := newDisk(t, map[string]string{"ws/.agentls/policy.toml": rules})
	tr := play(t, script{disk: d, calls: []*genai.FunctionCall{shellCall("echo ok 2>&1 >/dev/null | echo fine")}, cfg: func(c *agent.Config) {
		c.Policy, c.Approver = trustedEngine(t, d.root).WithMode(policy.ModeDefault), &fakeApprover{answer: func(agent.Approval) (bool, error) { return false, nil }}
	}})
	if got := tr.replies(t)[0].Response; got["output"] != "Exit code: 0\nOutput:\nfine\n" {
		t.Errorf("the allowed line: %v", got)
	}
}

// A deny rule refuses what would run, however it is spelled or wrapped,
// even when the user would say yes: the file it would delete stays.
func TestDenyRuleAttacks(t *testing.T) {
	t.Parallel()
	const rules = "[[rule]]\nname = \"no rm\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\n"
	for _, line := range []string{
		`rm victim`, `\rm victim`, `'rm' victim`, `r''m victim`, `"r"m victim`, `$'\x72m' victim`, `/bin/rm victim`,
		`timeout 5 rm victim`, `timeout -s KILL 5 rm victim`, `nice -n 5 rm victim`, `env FOO=1 rm victim`, `env -u HOME rm victim`,
		`command rm victim`, `echo victim | xargs rm`, `echo victim | xargs -n 1 rm`, `sh -c 'rm victim'`, `bash -ec "rm victim"`,
		`eval rm victim`, `eval 'rm victim'`, `find . -name victim -exec rm {} ';'`, `FOO=1 rm victim`, `echo $(rm victim)`,
		`nohup rm victim`, `stdbuf -o0 rm victim`, `exec rm victim`, `for f in victim; do rm $f; done`, `true && rm victim`,
	} {
		t.Run(line, func(t *testing.T) {
			t.Parallel()
			d := newDisk(t, map[string]string{"ws/.agentls/policy.toml": rules, "ws/victim": "keep\n"})
			play(t, script{disk: d, calls: []*genai.FunctionCall{shellCall(line)}, cfg: func(c *agent.Config) {
				c.Policy, c.Approver = trustedEngine(t, d.root).WithMode(policy.ModeDefault), &fakeApprover{}
			}})
			if _, err := os.Stat(filepath.Join(d.root, "victim")); err != nil {
				t.Errorf("%q deleted the file a rule protects", line)
			}
		})
	}
}
