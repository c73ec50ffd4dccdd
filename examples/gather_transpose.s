# run: ndma run --sem 6=1 examples/gather_transpose.s
# gather_transpose.s — an indexed gather-transpose (DMA_GATHER_TRANSPOSE 0xf1, DMA_GATHER_XPOSE,
# field-tables §3.7), the example of field-tables §9.4, with the walk of §11.5.
#
# src: a BF16 table in HBM, [128 (X), 64 (Y)] with element steps [1, 128] = byte steps [2, 256]
#      (§11.3). N = src_num_elem[1] = 64 UINT32 indices select 64 rows; row j starts at
#      src_start + idx[j] * src_step_elem[1] and holds L = elem_size / 2 = 128 BF16 values.
# idx: 64 UINT32 in SBUF, 4-byte aligned, spread over idx_num_active_channels = 128 partitions
#      (index j at partition j mod 128, §11.5), starting at partition 0.
# dst: SBUF, 32-byte aligned; dst(j, k) = dst_start + 2*j + k*dst_step_elem_1: dst_num_elem =
#      {N, L} = {64, 128}, dst_step_elem_1 = 64 x 2 = 128 bytes (a multiple of 32).
#      The xbar cuts 64 indices into 4 tiles of 16 rows (src_num_elem[1] % 16 == 0).
# gather_dim must be Y; dtype lo == hi, a 2-byte type (BF16).
.gen cayman

dma_gather_transpose wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=6, semaphore_value=1,
    semaphore=7, idx_num_active_channels=128,
    src_start_addr=hbm:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64],
    src_idx_start_addr=sbuf:0:0x2000,
    dst_start_addr=sbuf:0:0x8000, dst_step_elem_1=128, dst_num_elem=[64, 128],
    elem_size=256, dtype_lo=BFLOAT16, dtype_hi=BFLOAT16, gather_dim=Y
