# run: ndma run --sem 3=2 examples/copy2d.s
# copy2d.s — a MAVERICK 2-D copy fanned out over four DMA engines (DMA_MEMCPY2 0xb9, DMA_COPY2D,
# field-tables §3.8; DMA_ENGINE_CONFIG / DMA_FLAGS §2.5; DMA_SEMA_UPDATE_MODE §5.4; WAIT_MODE §5.5).
#
# Moves 2 blocks of 128 rows x 512 bytes from HBM (rows contiguous, the blocks 64 KiB apart)
# into SBUF, one row per partition (v5 partition stride 1 MiB = 0x100000, §11.2), the second
# block 512 bytes after the first in every partition. Both legs: elem_size 512, 128 x 2 elements,
# 128 KiB in total; byte strides (§11.3). Both addresses are IMM64 (addr_mode 0, the default).
# * wait_sema: issue only once semaphore 3 >= 2 (WAIT_FOR_SEM_GE_IMM, threshold in wait_sema_value);
# * engines: start_id 0, engine_count FOUR -> DMA engines 0..3 share the transfer, on queue 1;
# * completion: rd_done LOCAL_SEM_INC bumps semaphore 4 when the reads are done (the source may
#   be overwritten), wr_done LOCAL_SEM_INC bumps semaphore 5 when the data has landed.
# COPY2D has no EVENTS block, compute_op or dtype: it moves bytes.
.gen maverick

dma_memcpy2 wait_sema_value=2, wait_sema_idx=3, wait_sema_mode=WAIT_FOR_SEM_GE_IMM,
    start_id=0, engine_count=FOUR, queue_id=1,
    sema_update_mode.rd_done=LOCAL_SEM_INC, rd_done_sema_update_idx=4,
    sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=5,
    src_start_addr=hbm:0x100000, src_step_elem=[512, 0x10000], src_num_elem=[128, 2], src_elem_size=512,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[0x100000, 512], dst_num_elem=[128, 2], dst_elem_size=512
