package dge

import (
	"strings"
	"testing"

	"ndma/isa"
)

func lowerText(t *testing.T, gen isa.Gen, src string, opt Options) string {
	t.Helper()
	insts := assemble(t, src)
	p, err := Lower(&insts[0], gen, opt)
	if err != nil {
		t.Fatal(err)
	}
	return string(p.AppendDump(nil))
}

// emitLines keeps the backend and emit lines of a dump: the setup
// (contexts, ring bases) and reshape lines left out.
func emitLines(dump string) string {
	var out []string
	for _, l := range strings.SplitAfter(dump, "\n") {
		if !strings.HasPrefix(l, "S: DGE contexts ") && !strings.HasPrefix(l, "S: DGE Reshape: ") && !strings.HasPrefix(l, "S: rx.base=") && l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "")
}

// Source document 003 §7.2: the C08220 memcpy (input in HBM → gradient_in
// on chip, 128 × FP32, byte steps [4, 512]) pushes exactly the GENERATE and
// DIMPUSHes written there: GENERATE RD elem_size=4 sem_num=10, [128,128][1,1],
// [1,1][128,128].
func TestDump72(t *testing.T) {
	got := lowerText(t, isa.MarianaPlus, `dmamemcpy semaphore=10, sem_increment=1, src_start_addr=hbm:0x0,
  src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=sbuf:0:0x0,
  dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{})
	got = emitLines(got)
	want := `S: DGE: Select backend Pool
push GENERATE to DMA[0]: RD : addr=0x100000000, elem_size=4, sem_num=10
push DIMPUSH to DMA[0]: [128,128][1,1]
push DIMPUSH to DMA[0]: [1,1][128,128]
S: DGE $S[10]+=1@dmacomplete src=[0x0]@0x100000000[0x1,0x80][128,1] dst=[0x0]@0x2000000000[0x1,0x80][128,1] cast:0xa->0xa bounds:(0 0x1000001ff<=0x0, 0 0x1ff<=0x0) compute_op: 0x0
`
	if got != want {
		t.Errorf("dump:\n%s\nwant:\n%s", got, want)
	}
	// the q_gradient_out mirror: on-chip → HBM is the WR leg, addressed by the dst
	out := lowerText(t, isa.Cayman, `dmamemcpy semaphore=11, sem_increment=1, src_start_addr=sbuf:0:0x0,
  src_step_elem=[4, 512], src_num_elem=[128, 1], src_elem_size=4, dst_start_addr=hbm:0x200,
  dst_step_elem=[4, 512], dst_num_elem=[128, 1], dst_elem_size=4, in_dtype=FP32, out_dtype=FP32`, Options{})
	if !strings.Contains(out, "push REGWRITE to DMA[0]\npush GENERATE to DMA[0]: WR : addr=0x100000200, elem_size=4, sem_num=11\n") {
		t.Errorf("q_gradient_out:\n%s", out)
	}
}

// Source document 003 §8: the 64×128 BF16 transpose pushes [128,64][1,1] then
// [64,128][128,64], and its $S dump shows src [1,128][128,64], dst [1,64][64,128].
func TestDump8(t *testing.T) {
	got := lowerText(t, isa.MarianaPlus, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16,
  src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256,
  tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, Options{})
	for _, want := range []string{
		"push GENERATE to DMA[0]: RD : addr=0x2000000000, elem_size=2, sem_num=3\n",
		"push DIMPUSH to DMA[0]: [128,64][1,1]\npush DIMPUSH to DMA[0]: [64,128][128,64]\n",
		"src=[0x0]@0x2000000000[0x1,0x80][128,64] dst=[0x0]@0x2000008000[0x1,0x40][64,128] cast:0x6->0x6 ",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("dump lacks %q:\n%s", want, got)
		}
	}
}

// 003 §6.4: "The maverick Q7_POOL DEBUG image still carries DGE
// DIRECT2D/INDIRECT/GATHER + the descriptor-generation loop strings": those
// are the firmware's descriptor classes. A software-lowered transpose has no
// firmware line of its own, so ndma's says so with '#'; a gather-transpose
// is the firmware's DGE GATHER (issue 16, item 4).
func TestNoInventedFirmwareLines(t *testing.T) {
	xpose := lowerText(t, isa.MarianaPlus, `dma_transpose semaphore=3, in_dtype=bf16, out_dtype=bf16,
  src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256,
  tile_src_rows=16, tile_src_cols=128, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]`, Options{Backend: Software})
	if strings.Contains(xpose, "P0: DGE TRANSPOSE") || !strings.Contains(xpose, "\n# DGE TRANSPOSE: ndma's line") {
		t.Errorf("transpose dump:\n%s", xpose)
	}
	gather := lowerText(t, isa.Cayman, `dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x10000,
  src_step_elem=[2, 256], src_num_elem=[128, 64], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000,
  dst_step_elem_1=128, dst_num_elem=[64, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y`, Options{})
	if !strings.Contains(gather, "P0: DGE GATHER\n") {
		t.Errorf("gather-transpose dump:\n%s", gather)
	}
}

// The software backend's dump line carries indirection_dim (003: "software
// carries indirection_dim / reshape_kind"): the word's own flags.gather_dim
// for a gathered source, flags.scatter_dim for a scattered destination, not
// a constant (issue 16, item 3).
func TestIndirectionDimFromWord(t *testing.T) {
	base := `dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=512,
  src_num_elem=128, src_elem_size=512, dst_start_addr=sbuf:0:0x30000, dst_step_elem=262144, dst_num_elem=64, dst_elem_size=512,
  src_idx_start_addr=sbuf:0:0x2000, dst_idx_start_addr=sbuf:0:0x2000, in_dtype=FP16, out_dtype=FP16, `
	for _, tc := range []struct{ flags, want string }{
		{"indirect_mode=SRC, gather_dim=Y", "indirection_dim=0x1,"},
		{"indirect_mode=SRC, gather_dim=W", "indirection_dim=0x3,"},
		{"indirect_mode=DST, scatter_dim=Z", "indirection_dim=0x2,"},
	} {
		got := lowerText(t, isa.Cayman, base+tc.flags, Options{Backend: Software})
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: dump lacks %q:\n%s", tc.flags, tc.want, got)
		}
	}
}
