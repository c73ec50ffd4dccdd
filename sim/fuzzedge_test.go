package sim

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"ndma/asm"
	"ndma/internal/testutil"
	"ndma/isa"
	"ndma/mem"
	"ndma/ref"
)

// The word classes where ref and the engines once disagreed without the
// random harness noticing (its bothMachines forgives a word the engines
// cannot lower): DMA_INDIRECT scatters with dst_step_elem 0 and unique or
// repeated indices (H4), zero counts and byte steps (M8), start addresses
// in register pairs, transposes on SUNDA (L1). genEdge writes one; edgeBoth
// holds the two to one outcome with nothing forgiven.

// genEdge is a random word of edge class c (0–3) on generation g; it sets
// the registers and index tensor it needs into regs and idx (SBUF
// partition p, offset 0x400: index p).
func genEdge(r *rand.Rand, g isa.Gen, regs *[64]uint32, idx *[]uint32, c int) string {
	switch c % 4 {
	case 0: // a scatter of 8..32 lanes, indices unique or not, dst step 0 or an element
		lanes := 8 * (1 + r.IntN(4))
		*idx = make([]uint32, lanes)
		for j := range *idx {
			(*idx)[j] = uint32(j)
		}
		r.Shuffle(lanes, func(a, b int) { (*idx)[a], (*idx)[b] = (*idx)[b], (*idx)[a] })
		if r.IntN(3) == 0 { // one repeat
			a, b := r.IntN(lanes), r.IntN(lanes)
			(*idx)[a] = (*idx)[b]
		}
		dstep := []int{0, 4, 8}[r.IntN(3)]
		return fmt.Sprintf(`dma_indirect idx_num_active_channels=%d, indirect_mode=DST, non_unique_dst_idx=%d, idx_bound_is_err=%d,
  compute_op=%s, src_start_addr=hbm:0x0, src_step_elem=4, src_num_elem=%d, src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=%d, dst_num_elem=%d, dst_elem_size=4, dst_idx_start_addr=sbuf:0:0x400, in_dtype=u32, out_dtype=u32`,
			lanes, r.IntN(2), r.IntN(2), []string{"NONE", "ADD"}[r.IntN(2)], lanes, dstep, lanes)
	case 1: // counts of 0 and steps of no whole number of elements, on every kind
		n := func() int { return []int{0, 1, 2, 16}[r.IntN(4)] }
		st := func(e int) int { return []int{e, e * 2, e + 1, 3, 0}[r.IntN(5)] }
		switch r.IntN(3) {
		case 0:
			a, b := n(), n()
			return fmt.Sprintf(`dmamemcpy semaphore=1, sem_increment=1, in_dtype=u32, out_dtype=u32,
  src_start_addr=hbm:0x0, src_step_elem=[%d, 256], src_num_elem=[%d, %d], src_elem_size=4,
  dst_start_addr=hbm:0x2000, dst_step_elem=[%d, 256], dst_num_elem=[%d, %d], dst_elem_size=4`, st(4), a, b, st(4), a, b)
		case 1:
			rows, cols := 16*(r.IntN(2)), []int{0, 16}[r.IntN(2)]
			return fmt.Sprintf(`dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[%d, 64], src_num_elem=[%d, %d],
  tile_src_row_step=64, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[%d, 0x40000], dst_num_elem=[%d, %d]`, st(2), cols, rows, st(2), rows, cols)
		default:
			*idx = []uint32{0, 1, 2, 3}
			return fmt.Sprintf(`dma_indirect idx_num_active_channels=4, indirect_mode=SRC, idx_bound_is_err=%d,
  src_start_addr=hbm:0x0, src_step_elem=%d, src_num_elem=%d, src_elem_size=4, src_idx_start_addr=sbuf:0:0x400,
  dst_start_addr=hbm:0x2000, dst_step_elem=%d, dst_num_elem=%d, dst_elem_size=4, in_dtype=u32, out_dtype=u32`, r.IntN(2), st(4), n()*4, st(4), n())
		}
	case 2: // start addresses in register pairs, r[lo] | r[hi] << 32
		lo, hi := 4+2*r.IntN(4), 5+2*r.IntN(4)
		if r.IntN(8) == 0 {
			hi = 64 + r.IntN(8) // no such register
		}
		regs[lo], regs[(hi&63)] = uint32(r.IntN(4))*0x100, 1 // hbm:0x0..0x300
		if r.IntN(4) == 0 {
			regs[lo], regs[(hi&63)] = 0x40000*uint32(r.IntN(4))+0x40, 0 // SBUF
		}
		src, dst := fmt.Sprintf("reg(r%d, r%d)", lo, hi), "hbm:0x2000"
		if r.IntN(2) == 0 {
			src, dst = "hbm:0x1000", src
		}
		if r.IntN(3) == 0 {
			return fmt.Sprintf(`dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=%s, src_step_elem=[2, 32], src_num_elem=[16, 16],
  tile_src_row_step=32, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 0x40000], dst_num_elem=[16, 16]`, src)
		}
		return fmt.Sprintf(`dmamemcpy semaphore=1, sem_increment=1, in_dtype=u8, out_dtype=u8,
  src_start_addr=%s, src_step_elem=[1, 64], src_num_elem=[64, %d], src_elem_size=1,
  dst_start_addr=%s, dst_step_elem=[1, 64], dst_num_elem=[64, %d], dst_elem_size=1`, src, 1+r.IntN(4), dst, 1+r.IntN(4))
	}
	// transposes wherever: SUNDA has none
	if r.IntN(2) == 0 {
		return `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16, src_start_addr=sbuf:0:0x0, src_step_elem=[2, 64], src_num_elem=[16, 16],
  tile_src_row_step=64, tile_src_rows=16, tile_src_cols=16, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 0x40000], dst_num_elem=[16, 16]`
	}
	*idx = make([]uint32, 16)
	for j := range *idx {
		(*idx)[j] = uint32(r.IntN(64))
	}
	return `dma_gather_transpose semaphore=6, idx_num_active_channels=16, src_start_addr=hbm:0x0,
  src_step_elem=[2, 256], src_num_elem=[128, 16], src_idx_start_addr=sbuf:0:0x400, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=32, dst_num_elem=[16, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`
}

// edgeBoth runs a word on fresh machines of g — memory seeded, the index
// tensor idx at partition j offset 0x400 — and demands one outcome: both
// run to the same memory and semaphores, or both fault (memory untouched
// alike); nothing is forgiven, not a word the engines cannot lower. A
// fault under a rule both apply by design names the same lane and rule in
// the same words. It reports whether both ran.
func edgeBoth(t *testing.T, r *rand.Rand, g isa.Gen, src string, regs [64]uint32, idx []uint32) bool {
	t.Helper()
	in, ok := anyWord(g, src)
	if !ok {
		return false
	}
	a, b := ref.New(g), New(g)
	a.Regs, b.Regs = regs, regs
	seed(t, r, g, refM{a}, simM{b})
	stride := isa.Map(g).SBUFStride
	for j, v := range idx {
		w := []byte{byte(v), byte(v >> 8), byte(v >> 16), byte(v >> 24)}
		a.Mem.Write(uint64(j)*stride+0x400, w)
		b.Mem.Write(uint64(j)*stride+0x400, w)
	}
	ea, eb := a.Exec(in), b.Exec(in)
	if (ea == nil) != (eb == nil) {
		t.Fatalf("%s\n%s: ref %v, sim %v", g, src, ea, eb)
	}
	if d, differ := mem.FirstDifference(a.Mem, b.Mem, true); differ {
		t.Fatalf("%s\n%s: memory differs (ref %v, sim %v): %v", g, src, ea, eb, d)
	}
	var fa, fb *Fault
	if errors.As(ea, &fa) && errors.As(eb, &fb) && fa.Rule != "" && fb.Rule != "" && (fa.Rule != fb.Rule || fa.Lane != fb.Lane) {
		t.Fatalf("%s\n%s: ref %v, sim %v: not the same rule and lane", g, src, ea, eb)
	}
	return ea == nil
}

// anyWord is src as a word of g: assembled on g, or — a word g does not
// have (the assembler refuses a transpose on SUNDA) — assembled on CAYMAN
// and decoded on g, as a stream of g could carry it.
func anyWord(g isa.Gen, src string) (*isa.Inst, bool) {
	if in, ok := tryWord(g, src); ok {
		return in, true
	}
	obj, err := asm.Assemble("t.s", []byte(src), asm.Options{Gen: isa.Cayman})
	if err != nil {
		return nil, false
	}
	in, err := isa.Decode(g, obj.Code)
	return &in, err == nil
}

// FuzzEdgeDiff: genEdge's classes from the fuzzer's seeds, every generation.
func FuzzEdgeDiff(f *testing.F) {
	for i := uint64(0); i < 16; i++ {
		f.Add(i, i*3+1, uint8(i))
	}
	gens := []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.MarianaPlus, isa.Maverick}
	f.Fuzz(func(t *testing.T, s1, s2 uint64, c uint8) {
		r := rand.New(rand.NewPCG(s1, s2))
		g := gens[r.IntN(len(gens))]
		var regs [64]uint32
		var idx []uint32
		src := genEdge(r, g, &regs, &idx, int(c))
		edgeBoth(t, r, g, src, regs, idx)
	})
}

// genEdge's classes, a few hundred words: one outcome on both, and each
// class both runs and faults.
func TestEdgeClassesAgainstRef(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	gens := []isa.Gen{isa.Sunda, isa.Cayman, isa.Mariana, isa.MarianaPlus, isa.Maverick}
	trials := testutil.Trials(60)
	for c := range 4 {
		ran, faulted := 0, 0
		for range trials {
			g := gens[r.IntN(len(gens))]
			var regs [64]uint32
			var idx []uint32
			src := genEdge(r, g, &regs, &idx, c)
			if _, ok := anyWord(g, src); !ok {
				continue
			}
			if edgeBoth(t, r, g, src, regs, idx) {
				ran++
			} else {
				faulted++
			}
		}
		t.Logf("class %d: %d ran on both, %d faulted on both", c, ran, faulted)
		if ran == 0 || faulted == 0 {
			t.Errorf("class %d: %d ran, %d faulted: the class covers too little", c, ran, faulted)
		}
	}
}
