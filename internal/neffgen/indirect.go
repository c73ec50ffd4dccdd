package neffgen

import "fmt"

// GatherRows and GatherRowBytes are Gather's table: 16 rows of 64 bytes.
const (
	GatherRows     = 16
	GatherRowBytes = 64
)

// Gather is a style-B NEFF with an indirect gather on Pool: the input table
// (GatherRows rows of GatherRowBytes bytes, var 1, at hbm:0x0 as ndma
// places it) and the index tensor idx (n UINT32, var 2, at hbm:0x400); a
// 0xd4 copies idx into SBUF partitions 0…n−1 at offset 0x100 (index j at
// partition j, field-tables §11.5 with 128 active channels); a DMA_INDIRECT
// (indirect_mode SRC, src_num_elem = GatherRows: an index ≥ 16 is out of
// bounds) waits for it (≥ 16 on $S[24]) and gathers row idx[j] into
// sbuf:0:0x1000 + 64·j; a last 0xd4 copies the n rows to the output out.
// With skip the gather's idx_bound_is_err is 0 (an out-of-bounds lane is
// skipped), else 1 (an error).
func Gather(n int, skip bool) *Program {
	isErr := 1
	if skip {
		isErr = 0
	}
	pool := fmt.Sprintf(`pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=var(2), src_step_elem=[4, 1], src_num_elem=[%[1]d, 1], src_elem_size=4, dst_start_addr=var(0)+0x100, dst_step_elem=[0x40000, 1], dst_num_elem=[%[1]d, 1], dst_elem_size=4, in_dtype=UINT32, out_dtype=UINT32
dma_indirect wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=24, semaphore_value=16, semaphore=25, sem_increment=16, idx_num_active_channels=128, indirect_mode=SRC, idx_bound_is_err=%[2]d, src_start_addr=hbm:0x0, src_step_elem=%[3]d, src_num_elem=%[4]d, src_elem_size=%[3]d, dst_start_addr=sbuf:0:0x1000, dst_step_elem=%[3]d, dst_num_elem=%[1]d, dst_elem_size=%[3]d, src_idx_start_addr=sbuf:0:0x100, in_dtype=UINT8, out_dtype=UINT8
pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=25, semaphore_value=16, semaphore=26, sem_increment=16, src_start_addr=var(0)+0x1000, src_step_elem=[%[5]d, 1], src_num_elem=[1, 1], src_elem_size=%[5]d, dst_start_addr=var(3), dst_step_elem=[%[5]d, 1], dst_num_elem=[1, 1], dst_elem_size=%[5]d, in_dtype=UINT8, out_dtype=UINT8
`, n, isErr, GatherRowBytes, GatherRows, n*GatherRowBytes)
	return indexed(pool, GatherRows*GatherRowBytes, int64(n), int64(n*GatherRowBytes))
}

// XposeRows and XposeRowBytes are GatherTranspose's table: 64 rows of 128
// BF16 values.
const (
	XposeRows     = 64
	XposeRowBytes = 256
)

// GatherTranspose is Gather's NEFF with a DMA_GATHER_TRANSPOSE (0xf1, the
// example of field-tables §9.4) instead: the BF16 table (XposeRows rows of
// XposeRowBytes, var 1, hbm:0x0), n UINT32 row indices (var 2, hbm:0x4000,
// n a multiple of 16, at most 128) copied into SBUF partitions 0…n−1 at
// 0x100; row idx[j] of 128 elements lands transposed at sbuf:0:0x8000 +
// 2·j + 2n·k; a last 0xd4 copies the n × 128 elements to out. The word's
// src_idx_bound_reg is off: only the table's own size bounds a row index.
func GatherTranspose(n int) *Program {
	pool := fmt.Sprintf(`pseudo_dma_direct2d semaphore=24, sem_increment=16, src_start_addr=var(2), src_step_elem=[4, 1], src_num_elem=[%[1]d, 1], src_elem_size=4, dst_start_addr=var(0)+0x100, dst_step_elem=[0x40000, 1], dst_num_elem=[%[1]d, 1], dst_elem_size=4, in_dtype=UINT32, out_dtype=UINT32
dma_gather_transpose wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=24, semaphore_value=16, semaphore=25, idx_num_active_channels=128, src_start_addr=hbm:0x0, src_step_elem=[2, %[2]d], src_num_elem=[128, %[1]d], src_idx_start_addr=sbuf:0:0x100, dst_start_addr=sbuf:0:0x8000, dst_step_elem_1=%[3]d, dst_num_elem=[%[1]d, 128], elem_size=%[2]d, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y
pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=25, semaphore_value=1, semaphore=26, sem_increment=16, src_start_addr=var(0)+0x8000, src_step_elem=[%[4]d, 1], src_num_elem=[1, 1], src_elem_size=%[4]d, dst_start_addr=var(3), dst_step_elem=[%[4]d, 1], dst_num_elem=[1, 1], dst_elem_size=%[4]d, in_dtype=UINT8, out_dtype=UINT8
`, n, XposeRowBytes, 2*n, n*XposeRowBytes)
	return indexed(pool, XposeRows*XposeRowBytes, int64(n), int64(n*XposeRowBytes))
}

// indexed is the one-subgraph NEFF of Gather and GatherTranspose: the Pool
// stream pool over SB, the table (var 1), n UINT32 indices (var 2) and out
// (var 3), on one dynamic queue with semaphores from 24.
func indexed(pool string, tableBytes, n, outBytes int64) *Program {
	return &Program{Target: "cayman", Subgraphs: []Graph{{
		Name: "sg00",
		Vars: []Var{
			{Name: "SB", Type: "state-buffer"},
			{Name: "table", Type: "input", Size: tableBytes},
			{Name: "idx", Type: "input", Size: 4 * n},
			{Name: "out", Type: "output", Size: outBytes},
		},
		Queues:  map[string]Queue{"qPoolDynamic": {Owner: "pool", Type: "dynamic", Set: SetOf(24)}},
		Engines: []Engine{{Key: "pool", Manifest: "Pool.json", Instr: "Pool.bin", Asm: pool}},
	}}}
}
