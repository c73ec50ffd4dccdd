# run: ndma run examples/producer_consumer.s
# producer_consumer.s — two engine streams that synchronise through a semaphore (docs/sched.md).
#
# The ACT stream DMAs a 4 x 4-byte tile from HBM into SBUF partition 0 and, on completion, adds 1
# to semaphore 1. The POOL stream's DMA waits (EVENTS, field-tables §2.2) until $S[1] >= 1, then
# copies the tile on to HBM 0x100 and adds 1 to semaphore 2. POOL comes first in the file, so the
# round-robin scheduler offers it the first turn: its wait does not hold yet, the turn passes to
# ACT, and the next round POOL runs.
.gen cayman

.engine pool
consume:
dmamemcpy wait_mode=WAIT_FOR_SEM_GE_IMM, wait_idx=1, semaphore_value=1, semaphore=2, sem_increment=1,
    src_start_addr=sbuf:0:0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
    dst_start_addr=hbm:0x100, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32

.engine act
produce:
dmamemcpy semaphore=1, sem_increment=1,
    src_start_addr=hbm:0x0, src_step_elem=[4, 0], src_num_elem=[4, 1], src_elem_size=4,
    dst_start_addr=sbuf:0:0x0, dst_step_elem=[4, 0], dst_num_elem=[4, 1], dst_elem_size=4, in_dtype=u32, out_dtype=u32
