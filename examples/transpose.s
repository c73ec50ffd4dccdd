# run: ndma run examples/transpose.s
# transpose.s — the 64 x 128 BF16 transpose of source document 003 §8 (field-tables §9.3),
# resolved to DMA_TRANSPOSE (0xbd, DMA_DIRECT2D_XPOSE, field-tables §3.6; rules §11.5).
#
# src: 64 rows x 128 columns of BF16 in SBUF partition 0, row-major: element steps [1, 128]
#      become byte steps [2, 256] (§11.3); src_num_elem = {128 columns, 64 rows}.
# dst: the transpose, 128 rows x 64 columns: byte steps [2, 128], dst_num_elem = {64, 128} =
#      {src_num_elem[1], src_num_elem[0]}; dst(r, c) = src(c, r).
# Tiles (§3.6, §11.5): tile_src_rows must be 16 and divides the 64 src rows; tile_src_cols 128
# (<= 128 for a 2-byte type, divides the 128 columns); tile_src_row_step = src_step_elem[1].
# The dst is in SBUF and 32-byte aligned, and dst_step_elem[1] = 128 is a multiple of 32.
# in_dtype == out_dtype (BF16). DMA_TRANSPOSE has no sem_increment: completion posts semaphore 5.
.gen cayman

dma_transpose semaphore=5, in_dtype=BFLOAT16, out_dtype=BFLOAT16,
    src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64],
    tile_src_row_step=256, tile_src_rows=16, tile_src_cols=128,
    dst_start_addr=sbuf:0:0x4000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]
