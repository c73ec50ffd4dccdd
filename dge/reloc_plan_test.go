package dge

import (
	"math/rand/v2"
	"testing"

	"ndma/isa"
)

// pathDirect2D is the relocation to DMA_DIRECT2D move by move, field path by
// field path (isa.Inst.Uint / SetUint), as it was written before the copy
// lists: the reference the planned leaf copies are held to.
func pathDirect2D(in *isa.Inst, vars *Vars) (isa.Inst, error) {
	p, _ := in.PseudoDirect2D()
	var out isa.Inst
	r := repack{src: in, p: p, gen: in.Gen, out: &out}
	r.ext, r.hasExt = in.Ext()
	for k, a := range [2]isa.Addr8{p.SrcStartAddr(), p.DstStartAddr()} {
		v, err := vars.address(a, [2]string{"src_start_addr", "dst_start_addr"}[k])
		if err != nil {
			return isa.Inst{}, err
		}
		r.addr[k] = v
	}
	r.begin(isa.OpDMAMemcpy)
	r.copy(header...)
	r.copy("dma_configs.priority_class", "dma_configs.reserved", "semaphore", "sem_increment",
		"src_elem_size", "dst_elem_size", "in_dtype", "out_dtype")
	r.leg2D("src")
	r.leg2D("dst")
	r.ends("src_bound_reg", "dst_bound_reg")
	if r.hasExt {
		r.fromExt("compute_op", "compute_op")
	}
	if err := r.done(); err != nil {
		return isa.Inst{}, err
	}
	return out, nil
}

// Relocate's planned copies give the word, or the error, the path-by-path
// moves give — for pseudo words whose copied fields hold random values of
// their full width.
func TestRelocatePlanIsPathByPath(t *testing.T) {
	base := assemble(t, `pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1],
  src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=var(0)+0x37c00, dst_step_elem=[0x40000, 1],
  dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16`)[0]
	lay := base.Layout()
	var paths []string
	for _, c := range []*copies{direct2DCopies, direct2DBounds} {
		for _, pr := range c.pairs {
			paths = append(paths, pr[1])
		}
	}
	rng := rand.New(rand.NewPCG(17, 1))
	distinct := map[[isa.WordSize]byte]bool{}
	for n := range 2000 {
		in := base
		for _, path := range paths {
			if rng.IntN(3) > 0 {
				continue
			}
			i, ok := lay.LeafIndex(path)
			if !ok {
				t.Fatalf("pseudo layout has no %s", path)
			}
			v := rng.Uint64()
			if b := lay.Leaves()[i].Bits; b < 64 {
				v &= 1<<b - 1
			}
			if err := in.SetLeaf(i, v); err != nil {
				t.Fatal(err)
			}
		}
		want, werr := pathDirect2D(&in, neffVars)
		got, gerr := Relocate(&in, neffVars)
		switch {
		case (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error():
			t.Fatalf("word %d: error %v, path by path %v", n, gerr, werr)
		case werr != nil:
		case !got.Equal(&want):
			t.Fatalf("word %d: planned copies differ from path by path", n)
		default:
			w, _ := isa.Encode(got)
			distinct[w] = true
		}
	}
	if len(distinct) < 1000 {
		t.Errorf("%d distinct relocated words of 2000: the random fields did not reach the output", len(distinct))
	}
}
