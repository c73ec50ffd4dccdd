package sim

import (
	"reflect"
	"testing"

	"ndma/isa"
)

// A word's effect lists the bytes it read, for the scheduler's race checks
// (H1): its M2S legs on every path, an indirect word's index tensor, a
// TENSOR_LOAD's elements; Exec, which drops the effect, builds none.
func TestReadSpans(t *testing.T) {
	const hbm = 0x1_0000_0000
	for _, tc := range []struct {
		src  string
		want [][2]uint64
	}{
		{`dmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=hbm:0x2000, src_step_elem=[1, 64], src_num_elem=[64, 1], src_elem_size=1,
  dst_start_addr=hbm:0x3000, dst_step_elem=[1, 64], dst_num_elem=[64, 1], dst_elem_size=1`, [][2]uint64{{hbm + 0x2000, hbm + 0x2040}}},
		{`dmamemcpy in_dtype=u8, out_dtype=u8, src_start_addr=sbuf:2:0x100, src_step_elem=[1, 0x40000], src_num_elem=[16, 2], src_elem_size=1,
  dst_start_addr=hbm:0x3000, dst_step_elem=[1, 16], dst_num_elem=[16, 2], dst_elem_size=1`, [][2]uint64{{2*0x40000 + 0x100, 2*0x40000 + 0x110}, {3*0x40000 + 0x100, 3*0x40000 + 0x110}}},
		{`dma_indirect idx_num_active_channels=2, indirect_mode=SRC, idx_bound_is_err=1, src_start_addr=hbm:0x0,
  src_step_elem=4, src_num_elem=16, src_elem_size=4, src_idx_start_addr=sbuf:0:0x1000,
  dst_start_addr=hbm:0x10000, dst_step_elem=4, dst_num_elem=4, dst_elem_size=4, in_dtype=u32, out_dtype=u32`,
			[][2]uint64{{0x1000, 0x1008}, {0x40000 + 0x1000, 0x40000 + 0x1008}, {hbm, hbm + 4}, {hbm, hbm + 4}, {hbm, hbm + 4}, {hbm, hbm + 4}}}, // the index columns; indices 0, 0, 0, 0 read hbm:0x0 four times
		{`tensor_load dtype=UINT32, num_elem=[2, 2], start_addr=sbuf:0:0x100, step_elem=[1, 16], data=[8, 9, 10, 11]`,
			[][2]uint64{{0x100, 0x108}, {0x140, 0x148}}},
	} {
		for _, exact := range []bool{false, true} {
			x := New(isa.Cayman)
			x.exact = exact
			eff, err := x.Issue(wordTB(t, isa.Cayman, tc.src))
			if err != nil {
				t.Fatalf("%s: %v", tc.src, err)
			}
			if !reflect.DeepEqual(eff.Reads, tc.want) {
				t.Fatalf("%s (exact %v): reads %#x, want %#x", tc.src, exact, eff.Reads, tc.want)
			}
		}
	}
}
