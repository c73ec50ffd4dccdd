package device

import (
	"bytes"
	"strings"
	"testing"

	"ndma/internal/neffgen"
	"ndma/isa"
	"ndma/neff"
)

// The sequencer scalar movers in a NEFF engine stream (issue 16 item 9):
// the pseudo forms relocated against the NEFF's variables (field-tables
// §3.12: "Pseudo 0xcd/0xce replace start_addr by var_id u32@16 +
// var_offset u32@20"), then run on both executors with the stream's
// registers: two UINT32 immediates into out+0x10, loaded into r5, r6, and
// stored back swapped from the registers at out+0x20.
func TestNEFFRunsScalarMovers(t *testing.T) {
	p := neffgen.Inline(0)
	g := &p.Subgraphs[0]
	g.Engines[0].Asm = `pseudo_tensor_store dtype=UINT32, src_datasrc=IMMEDIATE, num_elem=[2, 1], var_id=2, var_offset=0x10,
    step_elem=[1, 0], data=[1, 0, 0, 0, 2, 0, 0, 0]
pseudo_tensor_load dtype=UINT32, num_elem=[2, 1], var_id=2, var_offset=0x10, step_elem=[1, 0], data=[5, 6]
pseudo_tensor_store dtype=UINT32, num_elem=[2, 1], var_id=2, var_offset=0x20, step_elem=[1, 0], data=[6, 5]
`
	f, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, exec := range []Exec{Sim, Ref, Both} {
		im, err := Load(isa.Cayman, f, sgs, nil)
		if err != nil {
			t.Fatal(err)
		}
		res, err := im.Run(NEFFOptions{Exec: exec})
		if err != nil {
			t.Fatalf("%s: %v", exec, err)
		}
		if n := res.NotRun["TENSOR_STORE"] + res.NotRun["TENSOR_LOAD"]; n != 0 {
			t.Errorf("%s: %d scalar movers not computed", exec, n)
		}
		out, err := im.Var("out")
		if err != nil {
			t.Fatal(err)
		}
		want := []byte{1, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0}
		if got := out[0x10:0x28]; !bytes.Equal(got, want) {
			t.Errorf("%s: out[0x10:0x28] = % x, want % x", exec, got, want)
		}
	}
}

// A scalar mover whose elements leave its variable is refused before the
// run (never a write into the neighbour): two UINT32 from out+0xfffc of the
// 65536-byte out end at byte 0x10003.
func TestNEFFScalarMoverOutsideVariable(t *testing.T) {
	p := neffgen.Inline(0)
	p.Subgraphs[0].Engines[0].Asm = "pseudo_tensor_store dtype=UINT32, src_datasrc=IMMEDIATE, num_elem=[2, 1], var_id=2, var_offset=0xfffc, step_elem=[1, 0], data=[1, 0, 0, 0, 2]\n"
	f, sgs, err := p.Open(neff.Options{})
	if err != nil {
		t.Fatal(err)
	}
	im, err := Load(isa.Cayman, f, sgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = im.Run(NEFFOptions{Exec: Ref})
	if err == nil || !strings.Contains(err.Error(), "0xfffc..0x10003 of a 65536-byte variable") {
		t.Fatalf("run: %v", err)
	}
}
