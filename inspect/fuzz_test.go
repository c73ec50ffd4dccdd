package inspect

import (
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// FuzzInspect feeds any bytes through the NEFF reader into lint, the
// budget and diff: they refuse or report, never panic. Seeds: every
// synthetic shape and the indirect gather.
func FuzzInspect(f *testing.F) {
	progs := []*neffgen.Program{neffgen.Gather(8, false), neffgen.GatherTranspose(32)}
	for _, s := range neffgen.Shapes("cayman") {
		progs = append(progs, s.Program)
	}
	for _, p := range progs {
		b, err := p.Build()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	base, _ := neffgen.Inline(1).Build()
	_, baseSgs, err := neffgen.Open(base, neff.Options{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		_, sgs, err := neffgen.Open(b, neff.Options{MaxInflated: 1 << 20})
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
