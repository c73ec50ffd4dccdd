package sim

import (
	"testing"

	"ndma/isa"
)

// The per-row program (issue 16, item 1) builds a GENERATE per gathered row
// from its index, before the expansion applies the bounds: a row whose
// index points past the memory map but whose every dst element a quiet
// dst_bound_reg leaves out moves nothing on either executor — the row gets
// no GENERATE instead of failing the lowering. Rows 1 GiB apart: index 200
// (under the 2^31 index limit, field-tables §11.5) is past the HBM window.
func TestGatherRowOutsideMapAllQuiet(t *testing.T) {
	const word = `dma_gather_transpose idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, 0x40000000],
  src_num_elem=[4, 16], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:1:0x0, dst_step_elem_1=32,
  dst_num_elem=[16, 4], elem_size=8, dtype_lo=bf16, dtype_hi=bf16, gather_dim=Y`
	p := newPair(t, isa.Cayman)
	idx := gatherSetup(p, map[int]uint32{6: 200})
	p.reg(4, 0x3ffff) // below dst(0, 0) at 0x40000: every dst element is past it
	p.exec(word + `, dst_bound_reg.bc_enabled=1, dst_bound_reg.bc_reg=4, dst_bound_reg.bc_disable_oob_error_notif=1`)
	p.ok()
	for j := range idx {
		if got := p.get16(0x40000 + 2*uint64(j)); got != 0xeeee {
			t.Fatalf("dst(%d, 0) = %#x, want untouched", j, got)
		}
	}
	// every element in bounds: the row past the map is an error on both
	p = newPair(t, isa.Cayman)
	gatherSetup(p, map[int]uint32{6: 200})
	p.exec(word)
	if p.errA == nil || p.errB == nil {
		t.Fatalf("ref %v, sim %v: want both to fault", p.errA, p.errB)
	}
}
