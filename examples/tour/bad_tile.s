# bad_tile.s — the README tour's invalid word: examples/transpose.s with tile_src_rows = 8,
# which a DMA_TRANSPOSE may not have (has_valid_xpose_tile_rows_temporary: it must be 16,
# docs/validate.md). `ndma validate` names the rule, the field and its value; `ndma asm`
# refuses the file unless --no-validate.
.gen cayman

dma_transpose semaphore=5, in_dtype=BFLOAT16, out_dtype=BFLOAT16,
    src_start_addr=sbuf:0:0x0, src_step_elem=[2, 256], src_num_elem=[128, 64],
    tile_src_row_step=256, tile_src_rows=8, tile_src_cols=128,
    dst_start_addr=sbuf:0:0x4000, dst_step_elem=[2, 128], dst_num_elem=[64, 128]
