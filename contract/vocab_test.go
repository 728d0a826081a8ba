package contract_test

import (
	"go/constant"
	"go/types"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"golang.org/x/tools/go/packages"

	"github.com/agentls/agentls/contract"
)

// TestVocabulariesMatchAgent checks the contract's lists of event types,
// stop reasons and outcomes against the constants package agent declares,
// so that a new kind reaches the schemas, the plugins and the docs.
func TestVocabulariesMatchAgent(t *testing.T) {
	t.Parallel()
	pkgs, err := packages.Load(&packages.Config{Mode: packages.NeedTypes | packages.NeedName}, "github.com/agentls/agentls/agent")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load agent: %v %v", err, pkgs)
	}
	declared := map[string][]string{} // by type name
	scope := pkgs[0].Types.Scope()
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok {
			continue
		}
		if named, ok := c.Type().(*types.Named); ok && c.Val().Kind() == constant.String {
			declared[named.Obj().Name()] = append(declared[named.Obj().Name()], constant.StringVal(c.Val()))
		}
	}
	check := func(typ string, listed []string, extra ...string) {
		want := slices.Sorted(slices.Values(declared[typ]))
		got := slices.Sorted(slices.Values(slices.DeleteFunc(slices.Clone(listed), func(s string) bool { return slices.Contains(extra, s) })))
		if len(want) == 0 {
			t.Fatalf("agent declares no %s constants", typ)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("contract's %s list (-agent +contract):\n%s", typ, diff)
		}
	}
	check("EventType", strs(contract.EventTypes))
	check("StopReason", strs(contract.StopReasons))
	check("Outcome", strs(contract.Outcomes), string(contract.OutcomeDiscarded))
}
