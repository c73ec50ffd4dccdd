package sim

import (
	"fmt"
	"math/rand/v2"
	"ndma/internal/testutil"
	"strings"
	"testing"

	"ndma/isa"
	"ndma/ref"
)

// genMem2D is a random TENSOR_LOAD / TENSOR_STORE (field-tables §3.12): any
// whole-byte dtype, up to 40 elements (past the cap of 32 too), signed
// element steps (0 and negative included), an immediate start in SBUF, in
// HBM near a 16 MiB boundary or from a register pair, register or immediate
// data (the load's forced REGISTER broken sometimes), registers up to 64.
func genMem2D(r *rand.Rand, regs *[64]uint32) string {
	dtypes := []string{"UINT8", "INT8", "UINT16", "BFLOAT16", "UINT32", "FP32", "INT64", "FP8_EXP4"}
	size := map[string]int{"UINT8": 1, "INT8": 1, "FP8_EXP4": 1, "UINT16": 2, "BFLOAT16": 2, "UINT32": 4, "FP32": 4, "INT64": 8}
	dt := dtypes[r.IntN(len(dtypes))]
	es := size[dt]
	n0, n1 := 1+r.IntN(8), 1+r.IntN(5)
	step := [2]int{r.IntN(5) - 1, r.IntN(24) - 4}
	var addr string
	switch r.IntN(4) {
	case 0, 1:
		addr = fmt.Sprintf("sbuf:%d:%#x", r.IntN(4), es*(256+r.IntN(512)))
	case 2: // around the 16 MiB boundary of HBM: some spans cross it
		addr = fmt.Sprintf("hbm:%#x", 16<<20-es*r.IntN(40))
	default:
		regs[6], regs[7] = uint32(es*(64+r.IntN(256))), 0 // an SBUF partition-0 offset
		addr = "reg(r6, r7)"
	}
	op, src := "tensor_store", "REGISTER"
	if r.IntN(2) == 0 {
		op = "tensor_load"
	}
	if (op == "tensor_store") == (r.IntN(8) != 0) {
		src = "IMMEDIATE"
	}
	n := n0 * n1
	data := make([]string, 32)
	for k := range data {
		if src == "IMMEDIATE" {
			data[k] = fmt.Sprint(r.IntN(256))
		} else {
			data[k] = fmt.Sprint(8 + r.IntN(56)) // r6/r7 (the address) are not clobbered before use
			if r.IntN(64) == 0 {
				data[k] = "64" // past the registers: both refuse
			}
		}
	}
	if src == "IMMEDIATE" && r.IntN(4) != 0 { // mostly under the cap
		for n*es > 32 {
			n0, n1 = max(1, n0/2), max(1, n1-1)
			n = n0 * n1
		}
	}
	for i := range regs {
		if i != 6 && i != 7 {
			regs[i] = r.Uint32()
		}
	}
	return fmt.Sprintf("%s dtype=%s, src_datasrc=%s, num_elem=[%d, %d], start_addr=%s, step_elem=[%d, %d], data=[%s]\n",
		op, dt, src, n0, n1, addr, step[0], step[1], strings.Join(data, ", "))
}

// The sequencer scalar movers on ref (element by element) and on the
// engines' model (runs of the walk, staged): the same bytes, the same
// registers, the same faults.
func TestRandomMem2DAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(16, 9))
	ran, gens := 0, []isa.Gen{isa.Sunda, isa.Cayman, isa.Maverick}
	trials := testutil.Trials(400)
	for i := 0; i < trials; i++ {
		var regs [64]uint32
		src := genMem2D(r, &regs)
		g := gens[i%len(gens)]
		in := word(t, g, src)
		a, b := ref.New(g), New(g)
		if bothMachines(t, r, g, in, src, regs, a, b) {
			ran++
		}
		if a.Regs != b.Regs {
			t.Fatalf("%s: registers differ: ref %v, sim %v", src, a.Regs, b.Regs)
		}
	}
	if ran < trials/2 {
		t.Fatalf("only %d of %d random MEM_2D words ran on both", ran, trials)
	}
	t.Logf("%d of %d ran on both", ran, trials)
}

// FuzzMem2DDiff: random MEM_2D words from the fuzzer's seeds, ref against
// the engines' model.
func FuzzMem2DDiff(f *testing.F) {
	for i := uint64(0); i < 16; i++ {
		f.Add(i, i*31+7)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		r := rand.New(rand.NewPCG(s1, s2))
		var regs [64]uint32
		src := genMem2D(r, &regs)
		a, b := ref.New(isa.Cayman), New(isa.Cayman)
		bothMachines(t, r, isa.Cayman, word(t, isa.Cayman, src), src, regs, a, b)
		if a.Regs != b.Regs {
			t.Fatalf("%s: registers differ", src)
		}
	})
}

// BenchmarkMem2D: a 32-element UINT32 TENSOR_STORE from registers then the
// TENSOR_LOAD back, on the engines' model and on ref.
func BenchmarkMem2D(b *testing.B) {
	words := []*isa.Inst{
		wordTB(b, isa.Cayman, "tensor_store dtype=UINT32, num_elem=[8, 4], start_addr=sbuf:0:0x100, step_elem=[1, 16], data=[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]"),
		wordTB(b, isa.Cayman, "tensor_load dtype=UINT32, num_elem=[8, 4], start_addr=sbuf:0:0x100, step_elem=[1, 16], data=[32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, 60, 61, 62, 63]"),
	}
	for _, x := range []struct {
		name string
		exec func(*isa.Inst) error
	}{{"sim", New(isa.Cayman).Exec}, {"ref", ref.New(isa.Cayman).Exec}} {
		b.Run(x.name, func(b *testing.B) {
			for b.Loop() {
				for _, w := range words {
					if err := x.exec(w); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
