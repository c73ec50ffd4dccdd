package device

import (
	"errors"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/internal/sched"
	"ndma/isa"
	"ndma/neff"
)

// check finds the deadlock run would end in: a NOP waiting $S[77] ≥ 1,
// which nothing in the NEFF raises, is a problem at its word; the kernel
// without it checks clean; and run does deadlock on it (issue 30 M7).
func TestCheckFindsUnraisedWait(t *testing.T) {
	for _, bad := range []bool{false, true} {
		p := neffgen.HWVectorAdd("cayman")
		g := &p.Subgraphs[0]
		if bad {
			for e := range g.Engines {
				if g.Engines[e].Key == "dve" {
					g.Engines[e].Asm = neffgen.Word("nop", neffgen.Ev{Wait: 77, Value: 1, Inc: -1}) + g.Engines[e].Asm
				}
			}
		}
		f, sgs, err := p.Open(neff.Options{})
		if err != nil {
			t.Fatal(err)
		}
		ps, _, err := Check(isa.Cayman, f, sgs)
		if err != nil {
			t.Fatal(err)
		}
		var hit []string
		for _, pr := range ps {
			if strings.Contains(pr.Msg, "no word, queue or block of the NEFF raises") {
				hit = append(hit, pr.String())
			}
		}
		if bad != (len(hit) == 1) || bad && !strings.Contains(hit[0], "NOP waits on $S[77] (WAIT_FOR_SEM_GE_IMM 1)") {
			t.Errorf("bad %v: problems %v", bad, ps)
		}
		if !bad {
			continue
		}
		im, err := Load(isa.Cayman, f, sgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		var d *sched.Deadlock
		if _, err := im.Run(Options{Exec: Sim}); !errors.As(err, &d) {
			t.Errorf("run: %v, want a deadlock", err)
		}
	}
}
