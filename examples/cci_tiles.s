# run: ndma run examples/cci_tiles.s
# cci_tiles.s — COMPACT_CONTROL_INST words walk a source pointer over three 512-byte tiles of HBM
# and the DMA_MEMCPY2 after each reads its tile through that register pair (DMA_ADDR_MODE
# REG_PAIR: r8 | r9 << 32, field-tables §5.3; registers are the stream's, shared by both words,
# docs/cci.md). Tile k lands in SBUF partition k (MAVERICK: 1 MiB partition stride, §11.2);
# each copy adds 1 to semaphore 3 when it completes.
.gen maverick

compact_control_inst
    mov_imm_lo r8, 0          # r8 | r9 << 32 = 0x1_0000_0000 = hbm:0x0
    mov_imm_lo r9, 1
    mov_imm_lo r10, 0x200     # the tile stride
dma_memcpy2 sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=3,
    addr_mode.src=REG_PAIR, src_start_addr=regs(r8, r0, r0, 0), src_step_elem=[512, 0], src_num_elem=[1, 1], src_elem_size=512,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[512, 0], dst_num_elem=[1, 1], dst_elem_size=512

compact_control_inst
    add r8, r8, r10           # the next tile
dma_memcpy2 sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=3,
    addr_mode.src=REG_PAIR, src_start_addr=regs(r8, r0, r0, 0), src_step_elem=[512, 0], src_num_elem=[1, 1], src_elem_size=512,
    dst_start_addr=sbuf:1:0x0, dst_step_elem=[512, 0], dst_num_elem=[1, 1], dst_elem_size=512

compact_control_inst
    add r8, r8, r10
dma_memcpy2 sema_update_mode.wr_done=LOCAL_SEM_INC, wr_done_sema_update_idx=3,
    addr_mode.src=REG_PAIR, src_start_addr=regs(r8, r0, r0, 0), src_step_elem=[512, 0], src_num_elem=[1, 1], src_elem_size=512,
    dst_start_addr=sbuf:2:0x0, dst_step_elem=[512, 0], dst_num_elem=[1, 1], dst_elem_size=512
