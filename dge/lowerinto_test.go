package dge

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"ndma/isa"
)

// LowerInto reuses one Program's storage word after word; each result must
// be the program a fresh Lower builds of the same word — same channels,
// micro-ops, index values, dump — whatever the word before it left behind:
// a 16-channel fan-out then one channel, per-row programs of more and fewer
// rows, a transpose, a word Lower refuses in between.
func TestLowerIntoIsLower(t *testing.T) {
	words := []struct {
		gen isa.Gen
		src string
		opt Options
	}{
		{isa.Cayman, `dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16`, Options{}},
		{isa.MarianaPlus, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=hbm:0x0,
  src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{Backend: RTL}},
		{isa.MarianaPlus, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC,
  idx_bound_is_err=1, src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=512, dst_num_elem=64, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp16, out_dtype=fp16`, Options{Index: func(_, j int) (uint32, error) { return uint32(j*37+5) % 128, nil }}},
		{isa.MarianaPlus, `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, indirect_mode=SRC,
  src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512,
  dst_start_addr=sbuf:0:0x0, dst_step_elem=512, dst_num_elem=8, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000,
  in_dtype=fp16, out_dtype=fp16`, Options{}},
		{isa.Cayman, `dmamemcpy semaphore=1, sem_increment=1, src_start_addr=hbm:0x0, src_step_elem=[4, 512], src_num_elem=[0, 1], src_elem_size=4,
  dst_start_addr=hbm:0x1000, dst_step_elem=[4, 512], dst_num_elem=[0, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{}}, // refused: nothing to move
		{isa.MarianaPlus, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16,
  src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256,
  tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, Options{}},
		{isa.Cayman, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x10000,
  src_step_elem=[2, 256], src_num_elem=[128, 64], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=128, dst_num_elem=[64, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`, Options{}},
		{isa.Cayman, `dmamemcpy semaphore=2, sem_increment=3, src_start_addr=sbuf:0:0x0, src_step_elem=[0x40000, 4], src_num_elem=[64, 16], src_elem_size=4,
  dst_start_addr=hbm:0x0, dst_step_elem=[4, 256], dst_num_elem=[64, 16], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{}},
	}
	reused := &Program{}
	for round := range 2 { // the second round starts from the last word's storage
		for i, w := range words {
			in := assemble(t, w.src)[0]
			want, werr := Lower(&in, w.gen, w.opt)
			got, gerr := LowerInto(reused, &in, w.gen, w.opt)
			if (werr == nil) != (gerr == nil) || werr != nil && werr.Error() != gerr.Error() {
				t.Fatalf("round %d word %d: LowerInto error %v, Lower %v", round, i, gerr, werr)
			}
			if (want == nil) != (got == nil) {
				t.Fatalf("round %d word %d: LowerInto program %v, Lower %v", round, i, got != nil, want != nil)
			}
			if want == nil {
				continue
			}
			if got != reused {
				t.Fatalf("round %d word %d: LowerInto returned another program", round, i)
			}
			if d := cmp.Diff(want, got, cmpopts.IgnoreUnexported(Program{}), cmpopts.EquateEmpty()); d != "" {
				t.Errorf("round %d word %d: LowerInto differs from Lower (-Lower +LowerInto):\n%s", round, i, d)
			}
			if a, b := string(want.AppendDump(nil)), string(got.AppendDump(nil)); a != b {
				t.Errorf("round %d word %d: dump differs:\n%s\nwant:\n%s", round, i, b, a)
			}
		}
	}
}
