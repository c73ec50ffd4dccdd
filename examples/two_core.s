# run: ndma run examples/two_core.s
# two_core.s — an exchange between two NeuronCores (MAVERICK): cross-core DMA_MEMCPY2 with remote
# semaphores (field-tables §3.8: remote_core_id names the register holding the target core;
# REMOTE_SEM_INC bumps a semaphore on that core — docs/sched.md).
#
# Core 0 sends 16 bytes of its HBM into core 1's SBUF partition 0 and raises core 1's $S[5].
# Core 1 waits for $S[5] >= 1, sends the bytes back into core 0's HBM at 0x100 and raises
# core 0's $S[6]. The CCI word before each copy loads the target core into r7.
.gen maverick

.engine pool
.core 0
compact_control_inst
    mov_imm_lo r7, 1
dma_memcpy2 remote_core_id=7, sema_update_mode.wr_done=REMOTE_SEM_INC, wr_done_sema_update_idx=5,
    src_start_addr=hbm:0x0, src_step_elem=[16, 0], src_num_elem=[1, 1], src_elem_size=16,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[16, 0], dst_num_elem=[1, 1], dst_elem_size=16

.core 1
compact_control_inst
    mov_imm_lo r7, 0
dma_memcpy2 wait_sema_mode=WAIT_FOR_SEM_GE_IMM, wait_sema_idx=5, wait_sema_value=1,
    remote_core_id=7, sema_update_mode.wr_done=REMOTE_SEM_INC, wr_done_sema_update_idx=6,
    src_start_addr=sbuf:0:0x0, src_step_elem=[16, 0], src_num_elem=[1, 1], src_elem_size=16,
    dst_start_addr=hbm:0x100, dst_step_elem=[16, 0], dst_num_elem=[1, 1], dst_elem_size=16
