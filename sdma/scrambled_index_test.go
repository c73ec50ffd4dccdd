package sdma

import (
	"testing"

	"ndma/dge"
	"ndma/isa"
)

// An independent review of issue 16 item 1: a DMA_INDIRECT gather of 8
// rows with scrambled indices, every GENERATE and every descriptor worked
// by hand, and the descriptors held to the GENERATEs they follow from.
//
// The word: src HBM hbm:0x4000, 8 elements of 64 B (step 64); dst SBUF
// partition 2 offset 0x200, 8 elements of 64 B; semaphore 9. field-tables
// §11.5: "SRC (gather) dst[j] = src[idx_s[j]] for j < dst_num_elem". 003
// §3.1: GENERATE "is called once per gathered row (the per-row address is
// the index-driven address-gen result)" and "RD = M2S/read (HBM→local,
// doorbell TDRTP_inc)". Addresses (field-tables §11.2): "SBUF a →
// 0x20_0000_0000 + a; PSUM a → 0x28_0200_0000 + (a − 0x2000000); HBM a →
// a", with hbm:X = 0x1_0000_0000 + X ("[0x1_0000_0000, 0x20_0000_0000) …
// HBM") and SBUF partition p at p·256 KiB on v3 ("SBUF stride 256 KiB
// v2–v4"). So GENERATE j reads 0x1_0000_4000 + 64·idx[j]; the dst is one
// contiguous 512 B at 0x20_0000_0000 + 2·0x40000 + 0x200 = 0x20_0008_0200.
//
// The indices are a permutation with no two consecutive rows adjacent in
// the source (idx[j+1] ≠ idx[j] + 1), so no M2S descriptor may merge two
// rows: M2S is 8 descriptors of 64 B, FIRST on the first, LAST on the
// last; S2M is the 512 B run then the completion, "4 bytes into the EVT_SEM
// INC window of the semaphore (0x28_0270_1800 + 4·sem), marked INT_EN"
// (docs/lower.md; 0x28_0270_1824 for semaphore 9).
func TestGatherScrambledByHand(t *testing.T) {
	idx := []uint32{6, 2, 7, 0, 4, 1, 5, 3}
	const src = `dma_indirect semaphore=9, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=1,
  src_start_addr=hbm:0x4000, src_step_elem=64, src_num_elem=8, src_elem_size=64,
  dst_start_addr=sbuf:2:0x200, dst_step_elem=64, dst_num_elem=8, dst_elem_size=64,
  src_idx_start_addr=sbuf:0:0x100, in_dtype=UINT8, out_dtype=UINT8`
	p, lw, gens := lowerIndexed(t, src, 0, idx)
	if len(p.Channels) != 1 || len(gens) != 8 || len(lw.Queues) != 1 {
		t.Fatalf("%d channels, %d GENERATEs, %d queues; want 1, 8, 1", len(p.Channels), len(gens), len(lw.Queues))
	}
	q := lw.Queues[0]
	if len(q.M2S) != 8 || len(q.S2M) != 2 {
		t.Fatalf("%d M2S, %d S2M descriptors; want 8 (one a row) and 2", len(q.M2S), len(q.S2M))
	}
	for j, v := range idx {
		want := uint64(0x1_0000_4000 + 64*uint64(v))
		if g := gens[j]; g.Addr != want || g.Dir != dge.RD || g.ElemSize != 64 || g.Sem != 9 || int(g.Row) != j {
			t.Errorf("GENERATE %d: %s %#x elem_size %d sem %d row %d; by hand RD %#x 64 9 %d", j, g.Dir, g.Addr, g.ElemSize, g.Sem, g.Row, want, j)
		}
		d := &q.M2S[j]
		if d.BufPtr() != want || d.Length() != 64 || d.First() != (j == 0) || d.Last() != (j == 7) || d.IntEn() {
			t.Errorf("M2S[%d]: buf_ptr %#x len %d first %v last %v; by hand %#x 64 %v %v", j, d.BufPtr(), d.Length(), d.First(), d.Last(), want, j == 0, j == 7)
		}
		if d.BufPtr() != gens[j].Addr { // the descriptor follows from its row's GENERATE
			t.Errorf("M2S[%d] at %#x, its GENERATE at %#x", j, d.BufPtr(), gens[j].Addr)
		}
	}
	if d := &q.S2M[0]; d.BufPtr() != 0x20_0008_0200 || d.Length() != 512 || !d.First() || !d.Last() || d.IntEn() {
		t.Errorf("S2M[0]: buf_ptr %#x len %d; by hand 0x2000080200, 512", d.BufPtr(), d.Length())
	}
	if d := &q.S2M[1]; d.BufPtr() != 0x28_0270_1824 || d.Length() != 4 || !d.IntEn() {
		t.Errorf("completion: buf_ptr %#x len %d int_en %v; by hand 0x2802701824, 4, INT_EN", d.BufPtr(), d.Length(), d.IntEn())
	}
	// doorbells: "TDRTP_inc += #M2S and RDRTP_inc += #S2M"
	if len(q.Doorbells) != 2 || q.Doorbells[0] != (Doorbell{0, "TDRTP_inc", 8}) || q.Doorbells[1] != (Doorbell{0, "RDRTP_inc", 2}) {
		t.Errorf("doorbells %+v", q.Doorbells)
	}
}

// The scatter of the same rows (field-tables §11.5: "DST (scatter)
// dst[idx_d[j]] = op(dst, src[j]) for j < src_num_elem"): SBUF → HBM, so
// 003 §3.1's "WR = S2M/write (local→HBM, doorbell RDRTP_inc)": GENERATE j
// writes 0x1_0000_4000 + 64·idx[j], and S2M[j] is that 64 B; M2S is the
// src's one contiguous 512 B at 0x20_0008_0200.
func TestScatterScrambledByHand(t *testing.T) {
	idx := []uint32{6, 2, 7, 0, 4, 1, 5, 3}
	const src = `dma_indirect semaphore=9, sem_increment=1, idx_num_active_channels=128, indirect_mode=DST, idx_bound_is_err=1,
  src_start_addr=sbuf:2:0x200, src_step_elem=64, src_num_elem=8, src_elem_size=64,
  dst_start_addr=hbm:0x4000, dst_step_elem=64, dst_num_elem=8, dst_elem_size=64,
  dst_idx_start_addr=sbuf:0:0x100, in_dtype=UINT8, out_dtype=UINT8`
	_, lw, gens := lowerIndexed(t, src, 1, idx)
	q := lw.Queues[0]
	if len(gens) != 8 || len(q.M2S) != 1 || len(q.S2M) != 9 {
		t.Fatalf("%d GENERATEs, %d M2S, %d S2M; want 8, 1, 9", len(gens), len(q.M2S), len(q.S2M))
	}
	if d := &q.M2S[0]; d.BufPtr() != 0x20_0008_0200 || d.Length() != 512 {
		t.Errorf("M2S[0]: %#x len %d; by hand 0x2000080200, 512", d.BufPtr(), d.Length())
	}
	for j, v := range idx {
		want := uint64(0x1_0000_4000 + 64*uint64(v))
		if g := gens[j]; g.Addr != want || g.Dir != dge.WR || g.ElemSize != 64 {
			t.Errorf("GENERATE %d: %s %#x elem_size %d; by hand WR %#x 64", j, g.Dir, g.Addr, g.ElemSize, want)
		}
		if d := &q.S2M[j]; d.BufPtr() != want || d.Length() != 64 || d.BufPtr() != gens[j].Addr {
			t.Errorf("S2M[%d]: %#x len %d; by hand %#x 64 (its GENERATE's)", j, d.BufPtr(), d.Length(), want)
		}
	}
}

// lowerIndexed lowers the word src, its index tensor which (0 src, 1 dst)
// holding idx (the other never read), and returns its GENERATEs in order.
func lowerIndexed(t *testing.T, src string, which int, idx []uint32) (*dge.Program, *Lowered, []dge.Op) {
	t.Helper()
	in := word(t, isa.Cayman, src)
	p, lw, err := Lower(&in, isa.Cayman, dge.Options{Index: func(w, j int) (uint32, error) {
		if w != which {
			t.Fatalf("index tensor %d read (index %d); the word indexes tensor %d", w, j, which)
		}
		return idx[j], nil
	}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var gens []dge.Op
	for _, op := range p.Channels[0].Ops {
		if op.Kind == dge.Generate {
			gens = append(gens, op)
		}
	}
	return p, lw, gens
}
