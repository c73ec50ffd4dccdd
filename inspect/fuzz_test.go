package inspect

import (
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// FuzzInspect feeds any member bytes of a NEFF (neffgen.FuzzSeeds:
// def.json, manifests, streams) through the reader into lint, the budget
// and diff: they refuse or report, never panic. Seeds: every synthetic
// shape and the indirect gather.
func FuzzInspect(f *testing.F) {
	progs := []*neffgen.Program{neffgen.Gather(8, false), neffgen.GatherTranspose(32)}
	for _, s := range neffgen.Shapes("cayman") {
		progs = append(progs, s.Program)
	}
	seeds, err := neffgen.NewFuzzSeeds(progs...)
	if err != nil {
		f.Fatal(err)
	}
	seeds.Each(func(which uint16, data []byte) { f.Add(which, data) })
	base, _ := neffgen.Inline(1).Build()
	_, baseSgs, err := neffgen.Open(base, neff.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, which uint16, data []byte) {
		_, sgs, err := neffgen.Open(seeds.NEFF(which, data), neff.Options{MaxInflated: 1 << 20})
		if err != nil {
			return
		}
		a, err := Analyze(isa.Cayman, sgs, Options{})
		if err != nil {
			return
		}
		LintOf(a)
		_, _ = BudgetFrom(a)
		_, _ = Diff(isa.Cayman, sgs, isa.Cayman, baseSgs)
	})
}
