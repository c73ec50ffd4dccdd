# run: ndma run --sem 4=1 examples/scatter_add.s
# scatter_add.s — a scatter-add histogram (DMA_INDIRECT 0xbb, DMA_INDIRECT1D, field-tables §3.5),
# the example of field-tables §9.4: DST mode + non_unique_dst_idx + compute_op ADD; §11.5.
#
# src: 4 INT32 ones in SBUF partition 0 ([1, 1, 1, 1]), step 4 bytes.
# idx: 4 UINT32 destination indices [5, 5, 200, 5] in SBUF partition 0 (an immediate index
#      address must be in partition 0), read over idx_num_active_channels = 128 (must be 128).
# dst: 256 INT32 bins in HBM, step 4 bytes; dst[idx[j]] += src[j] for j < src_num_elem, the
#      repeated index 5 applying in order (non_unique_dst_idx) -> bin 5 = 3, bin 200 = 1.
# The destination index is bounded by register r10, which must hold 255 (the last bin):
# dst_idx_bound_reg enabled with idx_bound_is_err = 1, so an index > 255 is an error, not a
# skipped lane (§2.3, §11.5). Immediate addresses: the indirect dim is X (gather/scatter_dim 0).
.gen cayman

dma_indirect wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=4, semaphore_value=1,
    semaphore=3, sem_increment=1, idx_num_active_channels=128,
    indirect_mode=DST, idx_bound_is_err=1, non_unique_dst_idx=1,
    src_start_addr=sbuf:0:0x400, src_step_elem=4, src_num_elem=4, src_elem_size=4,
    dst_start_addr=hbm:0x0, dst_step_elem=4, dst_num_elem=256, dst_elem_size=4,
    dst_idx_start_addr=sbuf:0:0x100,
    in_dtype=INT32, out_dtype=INT32,
    dst_idx_bound_reg.bc_reg=10, dst_idx_bound_reg.bc_enabled=1,
    compute_op=ADD
