package device

import (
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// check says what run refuses: a fired block whose one descriptor moves
// more than a word may (1 GiB, --max-bytes) is a problem in check, as it
// is a refusal in run (issue 30 M7: check said 0 problems); one of 1 MiB
// is not.
func TestCheckWordBudget(t *testing.T) {
	for _, tc := range []struct {
		rows int64
		bad  bool
	}{{16, false}, {(1 << 14) + 1, true}} { // rows of 64 KiB: 1 MiB, and 1 GiB + 64 KiB
		p := neffgen.Triggered(neff.Desc{From: "big", To: "big2", FromSizes: []int64{65536, tc.rows}, FromSteps: []int64{1, 65536},
			ToSizes: []int64{65536, tc.rows}, ToSteps: []int64{1, 65536}})
		g := &p.Subgraphs[0]
		g.Engines[0].Asm += neffgen.Trigger("q_gradient_in", 1) // fire it
		id4, id6 := 4, 6                                        // the ids the sample's variables leave free (they are dense in check)
		g.Vars = append(g.Vars, neffgen.Var{Name: "big", Type: "input", Size: 65536 * tc.rows, ID: &id4}, neffgen.Var{Name: "big2", Type: "output", Size: 65536 * tc.rows, ID: &id6})
		f, sgs, err := p.Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := Check(isa.Cayman, f, sgs)
		if err != nil {
			t.Fatal(err)
		}
		var hit bool
		for _, pr := range ps {
			hit = hit || strings.Contains(pr.Msg, "more than the 1073741824 a word may")
		}
		if hit != tc.bad {
			t.Errorf("%d rows: problems %v; want the word budget %v", tc.rows, ps, tc.bad)
		}
	}
}
