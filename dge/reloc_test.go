package dge

import (
	"errors"
	"testing"

	"ndma/asm"
	"ndma/check"
	"ndma/isa"
)

// neffVars places matmul_small's variables the way the demo does: SB (var 0)
// at SBUF 0, x/y/output0 (vars 1, 2, 3) in HBM, the dge-table [1, 2, 3]
// (neff.md §5.3).
var neffVars = &Vars{
	Base:  map[uint16]uint64{0: 0, 1: 0x1_0000_0000, 2: 0x1_0001_0000, 3: 0x1_0002_0000},
	Table: []uint16{1, 2, 3},
}

func assemble(t *testing.T, src string) []isa.Inst {
	t.Helper()
	obj, err := asm.Assemble("t.s", []byte(".gen cayman\n"+src), asm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	insts, err := isa.DecodeAll(isa.Cayman, obj.Code)
	if err != nil {
		t.Fatal(err)
	}
	return insts
}

// The two Pool.bin words of neff.md §5.3, relocated: every field lands in the
// DIRECT2D layout, the table and var arms become HBM and SBUF addresses.
func TestRelocateNEFFWords(t *testing.T) {
	insts := assemble(t, `
pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=tbl(0), src_step_elem=[512, 1],
  src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=var(0)+0x37c00, dst_step_elem=[0x40000, 1],
  dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16
pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=4, semaphore_value=2, semaphore=27, sem_increment=16,
  src_start_addr=var(0)+0x4200, src_step_elem=[0x40000, 1], src_num_elem=[128, 1], src_elem_size=256,
  dst_start_addr=tbl(2), dst_step_elem=[256, 1], dst_num_elem=[128, 1], dst_elem_size=128,
  in_dtype=FP32, out_dtype=FP16`)
	want := []string{
		"dmamemcpy semaphore=24, sem_increment=16, src_start_addr=hbm:0x0, src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=sbuf:0:0x37c00, dst_step_elem=[262144, 1], dst_num_elem=[128, 1], dst_elem_size=512, in_dtype=FP16, out_dtype=FP16\n",
		"dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=4, semaphore_value=2, semaphore=27, sem_increment=16, src_start_addr=sbuf:0:0x4200, src_step_elem=[262144, 1], src_num_elem=[128, 1], src_elem_size=256, dst_start_addr=hbm:0x20000, dst_step_elem=[256, 1], dst_num_elem=[128, 1], dst_elem_size=128, in_dtype=FP32, out_dtype=FP16\n",
	}
	for i, out := range relocateAll(t, insts, want) {
		if ps := check.Validate(&out, isa.Cayman); check.Errors(ps) > 0 {
			t.Errorf("word %d relocates to an invalid word: %v", i, ps)
		}
	}
}

// relocateAll relocates each word with neffVars and holds its text to want.
func relocateAll(t *testing.T, insts []isa.Inst, want []string) []isa.Inst {
	t.Helper()
	var outs []isa.Inst
	for i, in := range insts {
		out, err := Relocate(&in, neffVars)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(asm.AppendInst(nil, &out)); got != want[i] {
			t.Errorf("word %d:\n got %s\nwant %s", i, got, want[i])
		}
		outs = append(outs, out)
	}
	return outs
}

func TestRelocateKinds(t *testing.T) {
	insts := assemble(t, `
pseudo_dma_direct2d dge_op=DMA_TRANSPOSE, semaphore=3, src_start_addr=var(0), src_step_elem=[2, 256], src_num_elem=[128, 64],
  dst_start_addr=var(0)+0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128], in_dtype=bf16, out_dtype=bf16
pseudo_dma_direct2d dge_op=DMA_INDIRECT1D, semaphore=5, sem_increment=1, src_start_addr=tbl(0), src_step_elem=[512, 0],
  src_num_elem=[128, 1], src_elem_size=512, dst_start_addr=var(0)+0x30000, dst_step_elem=[0x40000, 0], dst_num_elem=[64, 1],
  dst_elem_size=512, in_dtype=fp16, out_dtype=fp16, src_bound_reg.bc_enabled=1, src_bound_reg.bc_reg=9
pseudo_extension indirect_mode=SRC, idx_bound_is_err=1, idx_num_active_channels=128, src_idx_start_addr=sbuf:0:0x2000, compute_op=ADD
pseudo_dma_direct2d dge_op=DMA_GATHER_TRANSPOSE, semaphore=6, src_start_addr=tbl(1), src_step_elem=[2, 256],
  src_num_elem=[128, 64], src_elem_size=256, dst_start_addr=var(0)+0x1000, dst_step_elem=[2, 128], dst_num_elem=[64, 128],
  in_dtype=bf16, out_dtype=bf16
pseudo_extension gather_dim=Y, idx_num_active_channels=128, src_idx_start_addr=sbuf:0:0x100`)
	want := []string{
		"dma_transpose in_dtype=BFLOAT16, out_dtype=BFLOAT16, src_step_elem=[2, 256], src_num_elem=[128, 64], tile_src_row_step=256, dst_start_addr=sbuf:0:0x8000, dst_step_elem=[2, 128], dst_num_elem=[64, 128], tile_src_rows=16, tile_src_cols=128, semaphore=3\n",
		"dma_indirect semaphore=5, sem_increment=1, idx_num_active_channels=128, idx_bound_is_err=1, src_start_addr=hbm:0x0, src_step_elem=512, src_num_elem=128, src_elem_size=512, dst_start_addr=sbuf:0:0x30000, dst_step_elem=262144, dst_num_elem=64, dst_elem_size=512, src_idx_start_addr=sbuf:0:0x2000, in_dtype=FP16, out_dtype=FP16, src_idx_bound_reg.bc_reg=9, src_idx_bound_reg.bc_enabled=1, compute_op=ADD\n",
		"dma_gather_transpose semaphore=6, idx_num_active_channels=128, src_start_addr=hbm:0x10000, src_step_elem=[2, 256], src_num_elem=[128, 64], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x1000, dst_step_elem_1=128, dst_num_elem=[64, 128], elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y\n",
	}
	if len(insts) != 3 {
		t.Fatalf("%d instructions, want 3 (two with extensions)", len(insts))
	}
	relocateAll(t, insts, want)
}

func TestRelocateErrors(t *testing.T) {
	insts := assemble(t, `
pseudo_dma_direct2d dge_op=DMA_INDIRECT1D, src_start_addr=var(0), dst_start_addr=var(0)
pseudo_dma_direct2d dge_op=7
pseudo_dma_direct2d src_start_addr=var(9)
pseudo_dma_direct2d dst_start_addr=tbl(3)
dmamemcpy semaphore=1`)
	for i, want := range []error{ErrNeedsExtension, ErrUnsupportedOp, ErrMissingVar, ErrMissingTable, ErrNotPseudo} {
		_, err := Relocate(&insts[i], neffVars)
		if !errors.Is(err, want) {
			t.Errorf("word %d: %v, want %v", i, err, want)
		}
	}
	_, err := Relocate(&insts[1], neffVars)
	if err == nil || err.Error() != "unsupported dynamic dma opcode 7" {
		t.Errorf("dge_op 7: %v", err)
	}
	_, err = Relocate(&insts[3], neffVars)
	if err == nil || err.Error() != "dst_start_addr: dge-table index 3 (the table has 3 entries): dge-table index not in the table" {
		t.Errorf("table: %v", err)
	}
}
