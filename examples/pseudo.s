# run: ndma lower --var 0=sbuf:0:0x0 --var 1=hbm:0x0 --table 0=1,1,1 examples/pseudo.s
# pseudo.s — compiler-form DMA words as a NEFF carries them (PSEUDO_DMA_DIRECT2D 0xd4, field-tables
# §3.3; PSEUDO_ADDR8 arms §11.2 and neff.md §5.3–§5.4; the 0xda extension §3.4).
#
# Words 1–3 are the Pool DMAs of matmul_small sg00 (neff.md §5.3): completion semaphores from the
# Pool queue set (24..39) with sem_increment 16; byte strides and byte elem sizes.
#   var(N)+OFF  — NEFF variable N (var 0 = SB: OFF is the byte offset inside every partition)
#   tbl(I)+OFF  — entry I of the subgraph's dge-table list (0 = x, 1 = y, 2 = output0)
# Word 4+5 is a pseudo INDIRECT1D: dge_op DMA_INDIRECT1D must be followed by its 0xda extension
# (positional, no header), which the runtime lowers to one DMA_INDIRECT (0xbb).
.gen cayman

# x (dge-table 0, 128 rows of 512 bytes) -> SB + 0x37c00, one row per partition; FP16.
load_x:
pseudo_dma_direct2d semaphore=24, sem_increment=16, dge_op=DMA_DIRECT2D,
    src_start_addr=tbl(0), src_step_elem=[512, 1], src_num_elem=[128, 1], src_elem_size=512,
    dst_start_addr=var(0)+0x37c00, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=512,
    in_dtype=FP16, out_dtype=FP16

# y[128:256] (dge-table 1, second half at +0x8000) -> SB + 0x37800.
load_y_hi:
pseudo_dma_direct2d semaphore=26, sem_increment=16,
    src_start_addr=tbl(1)+0x8000, src_step_elem=[256, 1], src_num_elem=[128, 1], src_elem_size=256,
    dst_start_addr=var(0)+0x37800, dst_step_elem=[0x40000, 1], dst_num_elem=[128, 1], dst_elem_size=256,
    in_dtype=FP16, out_dtype=FP16

# the result: wait until semaphore 4 >= 2 (both PSUM->SBUF copies done), then SB + 0x4200
# (64 FP32 per partition) -> output0 (dge-table 2), cast FP32 -> FP16 (64 x 2 = 128-byte rows).
store_out:
pseudo_dma_direct2d wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=4, semaphore_value=2,
    semaphore=27, sem_increment=16,
    src_start_addr=var(0)+0x4200, src_step_elem=[0x40000, 1], src_num_elem=[128, 1], src_elem_size=256,
    dst_start_addr=tbl(2), dst_step_elem=[256, 1], dst_num_elem=[128, 1], dst_elem_size=128,
    in_dtype=FP32, out_dtype=FP16

# A gather (SRC mode): 64 rows of x picked by 64 UINT32 indices at SB partition 0 + 0x2000,
# landing one row per partition at SB + 0x30000. dst[j] = src[idx[j]], row j at
# tbl(0) + idx[j] * 512 (§11.5). An index >= src_num_elem (128) is an error (idx_bound_is_err).
gather_x:
pseudo_dma_direct2d semaphore=28, sem_increment=16, dge_op=DMA_INDIRECT1D,
    src_start_addr=tbl(0), src_step_elem=[512, 0], src_num_elem=[128, 1], src_elem_size=512,
    dst_start_addr=var(0)+0x30000, dst_step_elem=[0x40000, 0], dst_num_elem=[64, 1], dst_elem_size=512,
    in_dtype=FP16, out_dtype=FP16
pseudo_extension indirect_mode=SRC, idx_bound_is_err=1, idx_num_active_channels=128,
    src_idx_start_addr=sbuf:0:0x2000, src_bound_size_bytes=0x10000

# Style A (neff.md §5.2): no addresses in the word at all — a named queue's descriptor block,
# fired by PSEUDO_DMA_TRIGGER 0xc1. The runtime finds "q_gradient_out" in def.json's dma_queue and
# runs the dma[] block with block_id 0 of the owner engine's JSON (`ndma neff` does the same).
store_gradient:
pseudo_dma_trigger wait_mode=WAIT_FOR_SEM_GT_IMM, wait_idx=22, dma_queue_name="q_gradient_out", block_id=0
